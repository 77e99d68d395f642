package guest

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	eph "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_ephemeral"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

func ephemeralType(name string) func() tftypes.Type {
	if schemas == nil {
		return func() tftypes.Type { return tftypes.DynamicPseudoType }
	}
	return valueType(schemas.EphemeralResourceSchemas, name)
}

// ValidateEphemeralResourceConfig answers ephemeral.validate-ephemeral-resource-config.
func ValidateEphemeralResourceConfig(_ types.ProviderContext, req types.ValidateRequest) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		resp, err := provider().ValidateEphemeralResourceConfig(background(), &tfprotov6.ValidateEphemeralResourceConfigRequest{
			TypeName: req.TypeName,
			Config:   dynamic(req.Config),
		})
		return diagnostics(answered(resp, err, func(r *tfprotov6.ValidateEphemeralResourceConfigResponse) []*tfprotov6.Diagnostic {
			return r.Diagnostics
		}))
	}, failed)
}

// OpenEphemeralResource answers ephemeral.open-ephemeral-resource.
func OpenEphemeralResource(pc types.ProviderContext, req eph.OpenRequest) eph.OpenResponse {
	return guarded(func() eph.OpenResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return eph.OpenResponse{Result: []byte{0xc0}, Diagnostics: diagnostics(d)}
		}
		resp, err := s.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{
			TypeName:           req.TypeName,
			Config:             dynamic(req.Config),
			ClientCapabilities: &tfprotov6.OpenEphemeralResourceClientCapabilities{DeferralAllowed: pc.ClientCapabilities.DeferralAllowed},
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.OpenEphemeralResourceResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := eph.OpenResponse{Result: []byte{0xc0}}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.Result, bad = msgpack(resp.Result, ephemeralType(req.TypeName))
			d = withDiag(d, bad)
			out.Private = resp.Private
			out.RenewAtUnixMs = renewAt(resp.RenewAt)
			out.Deferred = deferredOut(resp.Deferred)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) eph.OpenResponse {
		return eph.OpenResponse{Result: []byte{0xc0}, Diagnostics: failed(d)}
	})
}

// RenewEphemeralResource answers ephemeral.renew-ephemeral-resource.
func RenewEphemeralResource(pc types.ProviderContext, req eph.PrivateRequest) eph.RenewResponse {
	return guarded(func() eph.RenewResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return eph.RenewResponse{Private: req.Private, Diagnostics: diagnostics(d)}
		}
		resp, err := s.RenewEphemeralResource(ctx, &tfprotov6.RenewEphemeralResourceRequest{TypeName: req.TypeName, Private: req.Private})
		d = append(d, answered(resp, err, func(r *tfprotov6.RenewEphemeralResourceResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := eph.RenewResponse{Private: req.Private}
		if resp != nil && err == nil {
			out.Private = resp.Private
			out.RenewAtUnixMs = renewAt(resp.RenewAt)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) eph.RenewResponse {
		return eph.RenewResponse{Private: req.Private, Diagnostics: failed(d)}
	})
}

// CloseEphemeralResource answers ephemeral.close-ephemeral-resource.
func CloseEphemeralResource(pc types.ProviderContext, req eph.PrivateRequest) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return diagnostics(d)
		}
		resp, err := s.CloseEphemeralResource(ctx, &tfprotov6.CloseEphemeralResourceRequest{TypeName: req.TypeName, Private: req.Private})
		return diagnostics(append(d, answered(resp, err, func(r *tfprotov6.CloseEphemeralResourceResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...))
	}, failed)
}

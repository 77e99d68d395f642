package guest

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	ds "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_data_source"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

func dataSourceType(name string) func() tftypes.Type {
	if schemas == nil {
		return func() tftypes.Type { return tftypes.DynamicPseudoType }
	}
	return valueType(schemas.DataSourceSchemas, name)
}

// ValidateDataResourceConfig answers data-source.validate-data-resource-config.
func ValidateDataResourceConfig(_ types.ProviderContext, req types.ValidateRequest) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		resp, err := provider().ValidateDataResourceConfig(background(), &tfprotov6.ValidateDataResourceConfigRequest{
			TypeName: req.TypeName,
			Config:   dynamic(req.Config),
		})
		return diagnostics(answered(resp, err, func(r *tfprotov6.ValidateDataResourceConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics }))
	}, failed)
}

// ReadDataSource answers data-source.read-data-source.
func ReadDataSource(pc types.ProviderContext, req ds.ReadDataRequest) ds.ReadDataResponse {
	return guarded(func() ds.ReadDataResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return ds.ReadDataResponse{State: []byte{0xc0}, Diagnostics: diagnostics(d)}
		}
		resp, err := s.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{
			TypeName:           req.TypeName,
			Config:             dynamic(req.Config),
			ProviderMeta:       dynamic(req.ProviderMeta),
			ClientCapabilities: &tfprotov6.ReadDataSourceClientCapabilities{DeferralAllowed: pc.ClientCapabilities.DeferralAllowed},
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.ReadDataSourceResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := ds.ReadDataResponse{State: []byte{0xc0}}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.State, bad = msgpack(resp.State, dataSourceType(req.TypeName))
			d = withDiag(d, bad)
			out.Deferred = deferredOut(resp.Deferred)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) ds.ReadDataResponse {
		return ds.ReadDataResponse{State: []byte{0xc0}, Diagnostics: failed(d)}
	})
}

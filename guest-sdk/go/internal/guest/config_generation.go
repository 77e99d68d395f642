package guest

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	cg "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_config_generation"
)

// GenerateResourceConfig answers config-generation.generate-resource-config. The host
// announces generate_resource_config for every Go provider, so a server that does not
// itself (terraform-plugin-framework before 1.19, the legacy SDK) gets what Terraform would
// have generated without it: the state less what only the provider sets.
func GenerateResourceConfig(pc types.ProviderContext, req cg.GenerateRequest) cg.GenerateResponse {
	return guarded(func() cg.GenerateResponse {
		all, d := providerSchemas()
		if all == nil {
			return cg.GenerateResponse{Config: []byte{0xc0}, Diagnostics: diagnostics(d)}
		}
		if all.ServerCapabilities == nil || !all.ServerCapabilities.GenerateResourceConfig {
			// Terraform's own generation needs no configured provider.
			config, bad := configFromState(all.ResourceSchemas[req.TypeName], req.State)
			return cg.GenerateResponse{Config: config, Diagnostics: diagnostics(withDiag(d, bad))}
		}
		ctx := background()
		s, configureDiags := configuredFor(ctx, pc)
		d = append(d, configureDiags...)
		if s == nil {
			return cg.GenerateResponse{Config: []byte{0xc0}, Diagnostics: diagnostics(d)}
		}
		resp, err := s.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{
			TypeName: req.TypeName,
			State:    dynamic(req.State),
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.GenerateResourceConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := cg.GenerateResponse{Config: []byte{0xc0}}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.Config, bad = msgpack(resp.Config, resourceType(req.TypeName))
			d = withDiag(d, bad)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) cg.GenerateResponse {
		return cg.GenerateResponse{Config: []byte{0xc0}, Diagnostics: failed(d)}
	})
}

// configFromState is Terraform's own generation (and terraform-plugin-framework 1.19's):
// the state with computed-only and deprecated attributes, deprecated blocks, the legacy
// SDK's implied `id` and empty optional strings null.
func configFromState(s *tfprotov6.Schema, state []byte) ([]byte, *tfprotov6.Diagnostic) {
	if s == nil || s.Block == nil {
		return []byte{0xc0}, unusable("the resource type has no schema")
	}
	ty := s.ValueType()
	value, err := (&tfprotov6.DynamicValue{MsgPack: state}).Unmarshal(ty)
	if err != nil {
		return []byte{0xc0}, unusable("its state does not decode: " + err.Error())
	}
	config, err := clearBlock(s.Block.Attributes, s.Block.BlockTypes, value, true)
	if err == nil {
		var out tfprotov6.DynamicValue
		if out, err = tfprotov6.NewDynamicValue(ty, config); err == nil {
			return out.MsgPack, nil
		}
	}
	return []byte{0xc0}, unusable(err.Error())
}

func unusable(why string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Cannot generate configuration",
		Detail:   "The configuration of the imported object could not be worked out: " + why,
	}
}

// clearBlock nulls in object v what a configuration of these attributes and blocks does
// not hold.
func clearBlock(attributes []*tfprotov6.SchemaAttribute, blocks []*tfprotov6.SchemaNestedBlock, v tftypes.Value, root bool) (tftypes.Value, error) {
	if v.IsNull() || !v.IsKnown() {
		return v, nil
	}
	var fields map[string]tftypes.Value
	if err := v.As(&fields); err != nil {
		return v, err
	}
	for _, a := range attributes {
		field, ok := fields[a.Name]
		if !ok || field.IsNull() || !field.IsKnown() {
			continue
		}
		computedOnly := a.Computed && !a.Optional
		legacyID := root && a.Name == "id" && a.Computed && a.Optional
		emptyString := false
		if a.Optional && field.Type().Is(tftypes.String) {
			var s string
			emptyString = field.As(&s) == nil && s == ""
		}
		switch {
		case a.Deprecated || computedOnly || legacyID || emptyString:
			fields[a.Name] = tftypes.NewValue(field.Type(), nil)
		case a.NestedType != nil:
			cleared, err := eachObject(field, func(o tftypes.Value) (tftypes.Value, error) {
				return clearBlock(a.NestedType.Attributes, nil, o, false)
			})
			if err != nil {
				return v, err
			}
			fields[a.Name] = cleared
		}
	}
	for _, b := range blocks {
		field, ok := fields[b.TypeName]
		if !ok || field.IsNull() || !field.IsKnown() || b.Block == nil {
			continue
		}
		if b.Block.Deprecated {
			fields[b.TypeName] = tftypes.NewValue(field.Type(), nil)
			continue
		}
		cleared, err := eachObject(field, func(o tftypes.Value) (tftypes.Value, error) {
			return clearBlock(b.Block.Attributes, b.Block.BlockTypes, o, false)
		})
		if err != nil {
			return v, err
		}
		fields[b.TypeName] = cleared
	}
	return tftypes.NewValue(v.Type(), fields), nil
}

// eachObject applies f to v if it is an object, else to each of its elements.
func eachObject(v tftypes.Value, f func(tftypes.Value) (tftypes.Value, error)) (tftypes.Value, error) {
	if v.IsNull() || !v.IsKnown() {
		return v, nil
	}
	ty := v.Type()
	switch {
	case ty.Is(tftypes.Object{}):
		return f(v)
	case ty.Is(tftypes.List{}) || ty.Is(tftypes.Set{}) || ty.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return v, err
		}
		for i, e := range elems {
			cleared, err := f(e)
			if err != nil {
				return v, err
			}
			elems[i] = cleared
		}
		return tftypes.NewValue(ty, elems), nil
	case ty.Is(tftypes.Map{}):
		var elems map[string]tftypes.Value
		if err := v.As(&elems); err != nil {
			return v, err
		}
		for k, e := range elems {
			cleared, err := f(e)
			if err != nil {
				return v, err
			}
			elems[k] = cleared
		}
		return tftypes.NewValue(ty, elems), nil
	}
	return v, nil
}

package guest

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	act "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_action"
	progress "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_action_progress"
)

// ActionSchemas answers action.action-schemas.
func ActionSchemas() []types.NamedSchema {
	return guarded(func() []types.NamedSchema {
		all, _ := providerSchemas()
		if all == nil {
			return nil
		}
		out := make([]types.NamedSchema, 0, len(all.ActionSchemas))
		for _, name := range sortedKeys(all.ActionSchemas) {
			if a := all.ActionSchemas[name]; a != nil && a.Schema != nil {
				out = append(out, types.NamedSchema{TypeName: name, Schema: schema(a.Schema)})
			}
		}
		return out
	}, func(types.Diagnostic) []types.NamedSchema { return nil })
}

// actionServer is the provider's action server; nil when it has no actions.
func actionServer(s tfprotov6.ProviderServer) tfprotov6.ActionServer {
	a, _ := s.(tfprotov6.ActionServer)
	return a
}

// ValidateActionConfig answers action.validate-action-config.
func ValidateActionConfig(typeName string, config []uint8) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		a := actionServer(provider())
		if a == nil {
			return diagnostics(unsupported("action", typeName))
		}
		resp, err := a.ValidateActionConfig(background(), &tfprotov6.ValidateActionConfigRequest{
			ActionType: typeName,
			Config:     dynamic(config),
		})
		return diagnostics(answered(resp, err, func(r *tfprotov6.ValidateActionConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics }))
	}, failed)
}

// PlanAction answers action.plan-action.
func PlanAction(pc types.ProviderContext, typeName string, config []uint8) act.PlanActionResponse {
	return guarded(func() act.PlanActionResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return act.PlanActionResponse{Diagnostics: diagnostics(d)}
		}
		a := actionServer(s)
		if a == nil {
			return act.PlanActionResponse{Diagnostics: diagnostics(append(d, unsupported("action", typeName)...))}
		}
		resp, err := a.PlanAction(ctx, &tfprotov6.PlanActionRequest{
			ActionType:         typeName,
			Config:             dynamic(config),
			ClientCapabilities: &tfprotov6.PlanActionClientCapabilities{DeferralAllowed: pc.ClientCapabilities.DeferralAllowed},
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.PlanActionResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := act.PlanActionResponse{}
		if resp != nil && err == nil {
			out.Deferred = deferredOut(resp.Deferred)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) act.PlanActionResponse {
		return act.PlanActionResponse{Diagnostics: failed(d)}
	})
}

// InvokeAction answers action.invoke-action: each progress event the server sends goes to
// Terraform as it comes, the completed event's diagnostics are the answer.
func InvokeAction(pc types.ProviderContext, typeName string, config []uint8) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return diagnostics(d)
		}
		a := actionServer(s)
		if a == nil {
			return diagnostics(append(d, unsupported("action", typeName)...))
		}
		stream, err := a.InvokeAction(ctx, &tfprotov6.InvokeActionRequest{
			ActionType:         typeName,
			Config:             dynamic(config),
			ClientCapabilities: &tfprotov6.InvokeActionClientCapabilities{},
		})
		d = append(d, answered(stream, err, func(*tfprotov6.InvokeActionServerStream) []*tfprotov6.Diagnostic { return nil })...)
		if stream == nil || err != nil || stream.Events == nil {
			return diagnostics(d)
		}
		for event := range stream.Events {
			switch e := event.Type.(type) {
			case tfprotov6.ProgressInvokeActionEventType:
				progress.ReportProgress(e.Message)
			case tfprotov6.CompletedInvokeActionEventType:
				d = append(d, e.Diagnostics...)
			}
		}
		return diagnostics(d)
	}, failed)
}

// Package export_tfwasm_provider_0_3_0_action is the action interface's exports, which the
// generated wit_exports calls; each one is internal/guest's.
package export_tfwasm_provider_0_3_0_action

import (
	"tfwasm.dev/go/internal/guest"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	act "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_action"
)

func ActionSchemas() []types.NamedSchema { return guest.ActionSchemas() }

func ValidateActionConfig(typeName string, config []uint8) []types.Diagnostic {
	return guest.ValidateActionConfig(typeName, config)
}

func PlanAction(ctx types.ProviderContext, typeName string, config []uint8) act.PlanActionResponse {
	return guest.PlanAction(ctx, typeName, config)
}

func InvokeAction(ctx types.ProviderContext, typeName string, config []uint8) []types.Diagnostic {
	return guest.InvokeAction(ctx, typeName, config)
}

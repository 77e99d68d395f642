// Package export_tfwasm_provider_0_2_0_resource is the resource interface's exports, which the
// generated wit_exports calls; each one is internal/guest's.
package export_tfwasm_provider_0_2_0_resource

import (
	"tfwasm.dev/go/internal/guest"
	res "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_resource"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

func ValidateResourceConfig(ctx types.ProviderContext, req types.ValidateRequest) []types.Diagnostic {
	return guest.ValidateResourceConfig(ctx, req)
}

func UpgradeResourceState(ctx types.ProviderContext, req res.UpgradeRequest) res.UpgradeResponse {
	return guest.UpgradeResourceState(ctx, req)
}

func ReadResource(ctx types.ProviderContext, req res.ReadRequest) res.ReadResponse {
	return guest.ReadResource(ctx, req)
}

func PlanResourceChange(ctx types.ProviderContext, req res.PlanRequest) res.PlanResponse {
	return guest.PlanResourceChange(ctx, req)
}

func ApplyResourceChange(ctx types.ProviderContext, req res.ApplyRequest) res.ApplyResponse {
	return guest.ApplyResourceChange(ctx, req)
}

func ImportResourceState(ctx types.ProviderContext, req res.ImportRequest) res.ImportResponse {
	return guest.ImportResourceState(ctx, req)
}

func MoveResourceState(ctx types.ProviderContext, req res.MoveRequest) res.MoveResponse {
	return guest.MoveResourceState(ctx, req)
}

func UpgradeResourceIdentity(ctx types.ProviderContext, req res.UpgradeIdentityRequest) res.UpgradeIdentityResponse {
	return guest.UpgradeResourceIdentity(ctx, req)
}

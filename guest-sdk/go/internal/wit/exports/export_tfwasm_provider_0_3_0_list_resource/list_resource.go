// Package export_tfwasm_provider_0_3_0_list_resource is the list-resource interface's
// exports, which the generated wit_exports calls; each one is internal/guest's.
package export_tfwasm_provider_0_3_0_list_resource

import (
	"tfwasm.dev/go/internal/guest"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	lr "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_list_resource"
)

func ListResourceSchemas() []types.NamedSchema { return guest.ListResourceSchemas() }

func ValidateListResourceConfig(typeName string, config []uint8) []types.Diagnostic {
	return guest.ValidateListResourceConfig(typeName, config)
}

func ListResource(ctx types.ProviderContext, req lr.ListRequest) lr.ListPage {
	return guest.ListResource(ctx, req)
}

// Package export_tfwasm_provider_0_2_0_function is the function interface's export, which the
// generated wit_exports calls; it is internal/guest's.
package export_tfwasm_provider_0_2_0_function

import (
	"tfwasm.dev/go/internal/guest"
	fn "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_function"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

func CallFunction(ctx types.ProviderContext, name string, arguments [][]uint8) witrt.Result[[]uint8, fn.FunctionError] {
	return guest.CallFunction(ctx, name, arguments)
}

package guest

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	fn "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_function"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

type functionResult = witrt.Result[[]uint8, fn.FunctionError]

// CallFunction answers function.call-function.
func CallFunction(pc types.ProviderContext, name string, arguments [][]uint8) functionResult {
	return guarded(func() functionResult {
		ctx := background()
		// Functions run on an unconfigured provider too; a configuration is used if given.
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return callError(summaries(d), witrt.None[uint32]())
		}
		args := make([]*tfprotov6.DynamicValue, len(arguments))
		for i, a := range arguments {
			args[i] = dynamic(a)
		}
		resp, err := s.CallFunction(ctx, &tfprotov6.CallFunctionRequest{Name: name, Arguments: args})
		if err != nil {
			return callError(err.Error(), witrt.None[uint32]())
		}
		if resp == nil {
			return callError("the provider's server returned no response", witrt.None[uint32]())
		}
		if resp.Error != nil {
			argument := witrt.None[uint32]()
			if a := resp.Error.FunctionArgument; a != nil && *a >= 0 && *a <= int64(^uint32(0)) {
				argument = witrt.Some(uint32(*a))
			}
			return callError(resp.Error.Text, argument)
		}
		result, bad := msgpack(resp.Result, func() tftypes.Type { return returnType(name) })
		if bad != nil {
			return callError(bad.Detail, witrt.None[uint32]())
		}
		return witrt.Ok[[]uint8, fn.FunctionError](result)
	}, func(d types.Diagnostic) functionResult {
		return callError(d.Detail, witrt.None[uint32]())
	})
}

func callError(text string, argument witrt.Option[uint32]) functionResult {
	return witrt.Err[[]uint8](fn.FunctionError{Text: text, Argument: argument})
}

func summaries(d []*tfprotov6.Diagnostic) string {
	var parts []string
	for _, x := range d {
		if x != nil {
			parts = append(parts, x.Summary+": "+x.Detail)
		}
	}
	return strings.Join(parts, "; ")
}

func returnType(name string) tftypes.Type {
	if schemas != nil {
		if f := schemas.Functions[name]; f != nil && f.Return != nil && f.Return.Type != nil {
			return f.Return.Type
		}
	}
	return tftypes.DynamicPseudoType
}

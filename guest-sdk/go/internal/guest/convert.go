package guest

import (
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

// dynamic wraps msgpack bytes from the host; an absent value is nil.
func dynamic(msgpack []byte) *tfprotov6.DynamicValue {
	if msgpack == nil {
		return nil
	}
	return &tfprotov6.DynamicValue{MsgPack: msgpack}
}

// msgpack returns a value for the host, which takes msgpack only: a JSON value (servers may
// answer in either) is re-encoded against ty. Absent is msgpack nil.
func msgpack(v *tfprotov6.DynamicValue, ty func() tftypes.Type) ([]byte, *tfprotov6.Diagnostic) {
	if v == nil {
		return []byte{0xc0}, nil
	}
	if len(v.MsgPack) > 0 || len(v.JSON) == 0 {
		if len(v.MsgPack) == 0 {
			return []byte{0xc0}, nil
		}
		return v.MsgPack, nil
	}
	t := ty()
	value, err := v.Unmarshal(t)
	if err == nil {
		var out tfprotov6.DynamicValue
		out, err = tfprotov6.NewDynamicValue(t, value)
		if err == nil {
			return out.MsgPack, nil
		}
	}
	return []byte{0xc0}, &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Provider returned an unusable value",
		Detail:   "The provider answered with a JSON value that does not convert to msgpack: " + err.Error(),
	}
}

func identityIn(v witrt.Option[[]uint8]) *tfprotov6.ResourceIdentityData {
	if v.IsNone() {
		return nil
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: dynamic(v.Some())}
}

func identityOut(v *tfprotov6.ResourceIdentityData) witrt.Option[[]uint8] {
	if v == nil || v.IdentityData == nil || len(v.IdentityData.MsgPack) == 0 {
		return witrt.None[[]uint8]()
	}
	return witrt.Some(v.IdentityData.MsgPack)
}

func deferredOut(d *tfprotov6.Deferred) witrt.Option[types.DeferredReason] {
	if d == nil {
		return witrt.None[types.DeferredReason]()
	}
	reason := types.DeferredReason_Unknown
	switch d.Reason {
	case tfprotov6.DeferredReasonResourceConfigUnknown:
		reason = types.DeferredReason_ResourceConfigUnknown
	case tfprotov6.DeferredReasonProviderConfigUnknown:
		reason = types.DeferredReason_ProviderConfigUnknown
	case tfprotov6.DeferredReasonAbsentPrereq:
		reason = types.DeferredReason_AbsentPrereq
	}
	return witrt.Some(reason)
}

func renewAt(t time.Time) witrt.Option[uint64] {
	if t.IsZero() {
		return witrt.None[uint64]()
	}
	return witrt.Some(uint64(t.UnixMilli()))
}

func diagnostics(in []*tfprotov6.Diagnostic) []types.Diagnostic {
	out := make([]types.Diagnostic, 0, len(in))
	for _, d := range in {
		if d == nil {
			continue
		}
		severity := types.Severity_Error
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			severity = types.Severity_Warning
		}
		out = append(out, types.Diagnostic{
			Severity:  severity,
			Summary:   d.Summary,
			Detail:    d.Detail,
			Attribute: path(d.Attribute),
		})
	}
	return out
}

// path converts an attribute path. WIT paths have no step for a set element, so a path
// through one stops at the set.
func path(p *tftypes.AttributePath) []types.PathStep {
	if p == nil {
		return nil
	}
	steps := p.Steps()
	out := make([]types.PathStep, 0, len(steps))
	for _, step := range steps {
		switch s := step.(type) {
		case tftypes.AttributeName:
			out = append(out, types.MakePathStepAttributeName(string(s)))
		case tftypes.ElementKeyString:
			out = append(out, types.MakePathStepElementKeyString(string(s)))
		case tftypes.ElementKeyInt:
			out = append(out, types.MakePathStepElementKeyInt(int64(s)))
		default:
			return out
		}
	}
	return out
}

func paths(in []*tftypes.AttributePath) [][]types.PathStep {
	out := make([][]types.PathStep, 0, len(in))
	for _, p := range in {
		if p != nil {
			out = append(out, path(p))
		}
	}
	return out
}

// failure is the one diagnostic of a call that could not run.
func failure(summary, detail string) []types.Diagnostic {
	return []types.Diagnostic{{Severity: types.Severity_Error, Summary: summary, Detail: detail}}
}

func withDiag(list []*tfprotov6.Diagnostic, d *tfprotov6.Diagnostic) []*tfprotov6.Diagnostic {
	if d == nil {
		return list
	}
	return append(list, d)
}

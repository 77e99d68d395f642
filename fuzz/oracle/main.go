// Command tfwasm-oracle answers tfwasm's differential tests with the reference
// implementations Terraform and OpenTofu run on every value: go-cty (msgpack and JSON codecs,
// equality, set membership) and OpenTofu's internal/plans/objchange (AssertPlanValid and
// AssertObjectCompatible, the checks core runs on a provider's answers).
//
// objchange is an internal package, so this file is built inside a scratch copy of the
// OpenTofu module (scripts/build-oracle.sh); nothing of OpenTofu is committed with tfwasm.
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on stdout, in order.
// Byte fields are base64 (encoding/json's form of []byte); types and schemas are JSON.
//
//	{"op":"msgpack","type":T,"msgpack":B}        decode, then re-encode in both codecs
//	{"op":"json","type":T,"json":"..."}          the same from cty JSON
//	{"op":"equal","type":T,"a":B,"b":B}          RawEquals, and Equals(...).True()
//	{"op":"plan","schema":S,"prior":B,"config":B,"planned":B}   AssertPlanValid
//	{"op":"apply","schema":S,"planned":B,"actual":B}            AssertObjectCompatible
//
// Both also report what OpenTofu's gRPC client checks of the same answer: write-only
// attributes null in the planned and the new state (plugin6/validation).
//
// A panic in the reference code is an answer too ({"panic": "..."}), never a crash.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"

	"github.com/opentofu/opentofu/internal/configs/configschema"
	"github.com/opentofu/opentofu/internal/plans/objchange"
	"github.com/opentofu/opentofu/internal/plugin6/validation"
)

type request struct {
	Op      string          `json:"op"`
	Type    json.RawMessage `json:"type,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`
	Msgpack []byte          `json:"msgpack,omitempty"`
	JSON    *string         `json:"json,omitempty"`
	A       []byte          `json:"a,omitempty"`
	B       []byte          `json:"b,omitempty"`
	Prior   []byte          `json:"prior,omitempty"`
	Config  []byte          `json:"config,omitempty"`
	Planned []byte          `json:"planned,omitempty"`
	Actual  []byte          `json:"actual,omitempty"`
}

type answer struct {
	// Error: the input was refused (decoding failed); the text is go-cty's.
	Error string `json:"error,omitempty"`
	// Panic: the reference code panicked on this input.
	Panic string `json:"panic,omitempty"`
	// Msgpack and JSON: the decoded value re-encoded; JSON is absent when the value holds an
	// unknown (cty JSON cannot hold one), with JSONError saying why.
	Msgpack   []byte  `json:"msgpack,omitempty"`
	JSON      *string `json:"json,omitempty"`
	JSONError string  `json:"json_error,omitempty"`
	// RawEquals and Equals: for "equal"; Equals is Equals(a, b).True() (set membership).
	RawEquals *bool `json:"raw_equals,omitempty"`
	Equals    *bool `json:"equals,omitempty"`
	// Errors: what objchange reported ("plan", "apply"); WhollyKnown: whether the new
	// state holds no unknown (core checks that beside AssertObjectCompatible).
	Errors      []string `json:"errors"`
	WhollyKnown *bool    `json:"wholly_known,omitempty"`
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			var ans answer
			if err := json.Unmarshal(line, &req); err != nil {
				ans.Error = "bad request: " + err.Error()
			} else {
				ans = serve(&req)
			}
			if err := enc.Encode(&ans); err != nil {
				fmt.Fprintln(os.Stderr, "tfwasm-oracle:", err)
				os.Exit(1)
			}
		}
		// Flush only when no more input is waiting, so a batch costs one write.
		if err != nil || in.Buffered() == 0 {
			out.Flush()
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "tfwasm-oracle:", err)
			os.Exit(1)
		}
	}
}

func serve(req *request) (ans answer) {
	defer func() {
		if r := recover(); r != nil {
			ans = answer{Panic: fmt.Sprint(r)}
		}
	}()
	switch req.Op {
	case "msgpack", "json":
		ty, err := ctyjson.UnmarshalType(req.Type)
		if err != nil {
			return answer{Error: "type: " + err.Error()}
		}
		var val cty.Value
		if req.Op == "msgpack" {
			val, err = ctymsgpack.Unmarshal(req.Msgpack, ty)
		} else if req.JSON != nil {
			val, err = ctyjson.Unmarshal([]byte(*req.JSON), ty)
		}
		if err != nil {
			return answer{Error: err.Error()}
		}
		return encode(val, ty)
	case "equal":
		ty, err := ctyjson.UnmarshalType(req.Type)
		if err != nil {
			return answer{Error: "type: " + err.Error()}
		}
		a, err := ctymsgpack.Unmarshal(req.A, ty)
		if err != nil {
			return answer{Error: "a: " + err.Error()}
		}
		b, err := ctymsgpack.Unmarshal(req.B, ty)
		if err != nil {
			return answer{Error: "b: " + err.Error()}
		}
		raw := a.RawEquals(b)
		eq := a.Equals(b)
		equals := eq.IsKnown() && !eq.IsNull() && eq.True()
		return answer{RawEquals: &raw, Equals: &equals}
	case "plan", "apply":
		schema, err := block(req.Schema)
		if err != nil {
			return answer{Error: "schema: " + err.Error()}
		}
		ty := schema.ImpliedType()
		decode := func(name string, b []byte) cty.Value {
			if err != nil {
				return cty.NilVal
			}
			var v cty.Value
			v, err = ctymsgpack.Unmarshal(b, ty)
			if err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
			return v
		}
		if req.Op == "plan" {
			prior, config, planned := decode("prior", req.Prior), decode("config", req.Config), decode("planned", req.Planned)
			if err != nil {
				return answer{Error: err.Error()}
			}
			errs := texts(objchange.AssertPlanValid(schema, prior, config, planned))
			errs = append(errs, writeOnly(schema, planned)...)
			return answer{Errors: errs}
		}
		planned, actual := decode("planned", req.Planned), decode("actual", req.Actual)
		if err != nil {
			return answer{Error: err.Error()}
		}
		known := actual.IsWhollyKnown()
		errs := texts(objchange.AssertObjectCompatible(schema, planned, actual))
		errs = append(errs, writeOnly(schema, actual)...)
		return answer{Errors: errs, WhollyKnown: &known}
	default:
		return answer{Error: fmt.Sprintf("unknown op %q", req.Op)}
	}
}

func encode(val cty.Value, ty cty.Type) answer {
	var ans answer
	b, err := ctymsgpack.Marshal(val, ty)
	if err != nil {
		return answer{Error: "re-encoding msgpack: " + err.Error()}
	}
	ans.Msgpack = b
	if j, err := ctyjson.Marshal(val, ty); err != nil {
		ans.JSONError = err.Error()
	} else {
		s := string(j)
		ans.JSON = &s
	}
	return ans
}

func writeOnly(schema *configschema.Block, v cty.Value) []string {
	var out []string
	for _, d := range validation.WriteOnlyAttributes(schema, v, "resource") {
		out = append(out, d.Description().Summary+": "+d.Description().Detail)
	}
	return out
}

func texts(errs []error) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}

// The schema JSON `terraform providers schema -json` prints (and tfwasm's schema_json.rs
// reads): attributes with "type" or "nested_type", block_types with "nesting_mode".
type blockJSON struct {
	Attributes map[string]attributeJSON `json:"attributes"`
	BlockTypes map[string]struct {
		NestingMode string    `json:"nesting_mode"`
		Block       blockJSON `json:"block"`
		MinItems    int       `json:"min_items"`
		MaxItems    int       `json:"max_items"`
	} `json:"block_types"`
}

type attributeJSON struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		Attributes  map[string]attributeJSON `json:"attributes"`
		NestingMode string                   `json:"nesting_mode"`
	} `json:"nested_type"`
	Required  bool `json:"required"`
	Optional  bool `json:"optional"`
	Computed  bool `json:"computed"`
	Sensitive bool `json:"sensitive"`
	WriteOnly bool `json:"write_only"`
}

func block(raw json.RawMessage) (*configschema.Block, error) {
	var b blockJSON
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, err
	}
	return convertBlock(&b)
}

func convertBlock(b *blockJSON) (*configschema.Block, error) {
	out := &configschema.Block{
		Attributes: map[string]*configschema.Attribute{},
		BlockTypes: map[string]*configschema.NestedBlock{},
	}
	for name, a := range b.Attributes {
		attr, err := convertAttribute(&a)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		out.Attributes[name] = attr
	}
	for name, bt := range b.BlockTypes {
		nested, err := convertBlock(&bt.Block)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		nesting, err := nestingMode(bt.NestingMode)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		out.BlockTypes[name] = &configschema.NestedBlock{
			Block:    *nested,
			Nesting:  nesting,
			MinItems: bt.MinItems,
			MaxItems: bt.MaxItems,
		}
	}
	return out, nil
}

func convertAttribute(a *attributeJSON) (*configschema.Attribute, error) {
	out := &configschema.Attribute{
		Required:  a.Required,
		Optional:  a.Optional,
		Computed:  a.Computed,
		Sensitive: a.Sensitive,
		WriteOnly: a.WriteOnly,
	}
	if a.NestedType != nil {
		nesting, err := nestingMode(a.NestedType.NestingMode)
		if err != nil {
			return nil, err
		}
		obj := &configschema.Object{Attributes: map[string]*configschema.Attribute{}, Nesting: nesting}
		for name, inner := range a.NestedType.Attributes {
			attr, err := convertAttribute(&inner)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			obj.Attributes[name] = attr
		}
		out.NestedType = obj
		return out, nil
	}
	ty, err := ctyjson.UnmarshalType(a.Type)
	if err != nil {
		return nil, err
	}
	out.Type = ty
	return out, nil
}

func nestingMode(s string) (configschema.NestingMode, error) {
	switch s {
	case "single":
		return configschema.NestingSingle, nil
	case "group":
		return configschema.NestingGroup, nil
	case "list":
		return configschema.NestingList, nil
	case "set":
		return configschema.NestingSet, nil
	case "map":
		return configschema.NestingMap, nil
	}
	return 0, fmt.Errorf("unknown nesting mode %q", s)
}

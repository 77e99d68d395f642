package guest

import (
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

// schemas holds the provider's schemas once read, for the value types a JSON answer is
// re-encoded with.
var schemas *tfprotov6.GetProviderSchemaResponse

func valueType(list map[string]*tfprotov6.Schema, name string) func() tftypes.Type {
	return func() tftypes.Type {
		if s := list[name]; s != nil {
			return s.ValueType()
		}
		return tftypes.DynamicPseudoType
	}
}

func resourceType(name string) func() tftypes.Type {
	if schemas == nil {
		return func() tftypes.Type { return tftypes.DynamicPseudoType }
	}
	return valueType(schemas.ResourceSchemas, name)
}

// providerSchemas returns the provider's schemas, asking its server the first time.
func providerSchemas() (*tfprotov6.GetProviderSchemaResponse, []*tfprotov6.Diagnostic) {
	if schemas != nil {
		return schemas, nil
	}
	resp, err := provider().GetProviderSchema(background(), &tfprotov6.GetProviderSchemaRequest{})
	diags := answered(resp, err, func(r *tfprotov6.GetProviderSchemaResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
	if resp == nil || err != nil || hasError(diags) {
		return nil, diags
	}
	schemas = resp
	return resp, nil
}

// GetSchema answers provider.get-schema.
func GetSchema() types.ProviderSchema {
	return guarded(getSchema, func(d types.Diagnostic) types.ProviderSchema {
		return types.ProviderSchema{Diagnostics: []types.Diagnostic{d}}
	})
}

func getSchema() types.ProviderSchema {
	ctx := background()
	s := provider()
	resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	diags := answered(resp, err, func(r *tfprotov6.GetProviderSchemaResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
	if resp == nil || err != nil {
		return types.ProviderSchema{Diagnostics: diagnostics(diags)}
	}
	schemas = resp
	out := types.ProviderSchema{
		Provider:           schema(resp.Provider),
		ProviderMeta:       witrt.None[types.Schema](),
		Resources:          named(resp.ResourceSchemas),
		DataSources:        named(resp.DataSourceSchemas),
		EphemeralResources: named(resp.EphemeralResourceSchemas),
		Functions:          functions(resp.Functions),
	}
	if resp.ProviderMeta != nil {
		out.ProviderMeta = witrt.Some(schema(resp.ProviderMeta))
	}
	ids, err := s.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	diags = append(diags, answered(ids, err, func(r *tfprotov6.GetResourceIdentitySchemasResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
	if ids != nil && err == nil {
		for _, name := range sortedKeys(ids.IdentitySchemas) {
			out.ResourceIdentities = append(out.ResourceIdentities, types.NamedIdentitySchema{
				TypeName: name,
				Schema:   identitySchema(ids.IdentitySchemas[name]),
			})
		}
	}
	out.Diagnostics = diagnostics(diags)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func named(list map[string]*tfprotov6.Schema) []types.NamedSchema {
	out := make([]types.NamedSchema, 0, len(list))
	for _, name := range sortedKeys(list) {
		out = append(out, types.NamedSchema{TypeName: name, Schema: schema(list[name])})
	}
	return out
}

// flat lays a schema out as WIT wants it: blocks and nested objects in lists, referring to
// each other by index, each entry used once; blocks[0] is the top-level block.
type flat struct {
	blocks  []types.Block
	objects []types.NestedObject
}

func schema(s *tfprotov6.Schema) types.Schema {
	if s == nil {
		s = &tfprotov6.Schema{}
	}
	var f flat
	f.block(s.Block)
	return types.Schema{Version: s.Version, Blocks: f.blocks, Objects: f.objects}
}

func (f *flat) block(b *tfprotov6.SchemaBlock) uint32 {
	if b == nil {
		b = &tfprotov6.SchemaBlock{}
	}
	index := uint32(len(f.blocks))
	f.blocks = append(f.blocks, types.Block{})
	out := types.Block{
		Description:        b.Description,
		DescriptionKind:    stringKind(b.DescriptionKind),
		Deprecated:         b.Deprecated,
		DeprecationMessage: b.DeprecationMessage,
	}
	for _, a := range b.Attributes {
		if a != nil {
			out.Attributes = append(out.Attributes, f.attribute(a))
		}
	}
	for _, nb := range b.BlockTypes {
		if nb == nil {
			continue
		}
		out.BlockTypes = append(out.BlockTypes, types.NestedBlock{
			TypeName: nb.TypeName,
			Block:    f.block(nb.Block),
			Nesting:  blockNesting(nb.Nesting),
			MinItems: nb.MinItems,
			MaxItems: nb.MaxItems,
		})
	}
	f.blocks[index] = out
	return index
}

func (f *flat) attribute(a *tfprotov6.SchemaAttribute) types.Attribute {
	var flags types.AttributeFlags
	set := func(on bool, flag types.AttributeFlags) {
		if on {
			flags |= flag
		}
	}
	set(a.Required, types.AttributeFlags_Required)
	set(a.Optional, types.AttributeFlags_Optional)
	set(a.Computed, types.AttributeFlags_Computed)
	set(a.Sensitive, types.AttributeFlags_Sensitive)
	set(a.Deprecated, types.AttributeFlags_Deprecated)
	set(a.WriteOnly, types.AttributeFlags_WriteOnly)
	out := types.Attribute{
		Name:               a.Name,
		Description:        a.Description,
		DescriptionKind:    stringKind(a.DescriptionKind),
		Flags:              flags,
		DeprecationMessage: a.DeprecationMessage,
	}
	if a.NestedType != nil {
		out.Type = types.MakeAttributeTypeNested(f.object(a.NestedType))
	} else {
		out.Type = types.MakeAttributeTypeTypeJson(typeJSON(a.Type))
	}
	return out
}

func (f *flat) object(o *tfprotov6.SchemaObject) uint32 {
	index := uint32(len(f.objects))
	f.objects = append(f.objects, types.NestedObject{})
	out := types.NestedObject{Nesting: objectNesting(o.Nesting)}
	for _, a := range o.Attributes {
		if a != nil {
			out.Attributes = append(out.Attributes, f.attribute(a))
		}
	}
	f.objects[index] = out
	return index
}

// typeJSON is Terraform's JSON form of a type; an absent type is dynamic.
func typeJSON(t tftypes.Type) string {
	if t == nil {
		return `"dynamic"`
	}
	b, err := t.MarshalJSON() //nolint:staticcheck // the protocol's own encoding of a type
	if err != nil {
		return `"dynamic"`
	}
	return string(b)
}

func stringKind(k tfprotov6.StringKind) types.StringKind {
	if k == tfprotov6.StringKindMarkdown {
		return types.StringKind_Markdown
	}
	return types.StringKind_Plain
}

func blockNesting(n tfprotov6.SchemaNestedBlockNestingMode) types.BlockNesting {
	switch n {
	case tfprotov6.SchemaNestedBlockNestingModeList:
		return types.BlockNesting_List
	case tfprotov6.SchemaNestedBlockNestingModeSet:
		return types.BlockNesting_Set
	case tfprotov6.SchemaNestedBlockNestingModeMap:
		return types.BlockNesting_Map
	case tfprotov6.SchemaNestedBlockNestingModeGroup:
		return types.BlockNesting_Group
	default:
		return types.BlockNesting_Single
	}
}

func objectNesting(n tfprotov6.SchemaObjectNestingMode) types.ObjectNesting {
	switch n {
	case tfprotov6.SchemaObjectNestingModeList:
		return types.ObjectNesting_List
	case tfprotov6.SchemaObjectNestingModeSet:
		return types.ObjectNesting_Set
	case tfprotov6.SchemaObjectNestingModeMap:
		return types.ObjectNesting_Map
	default:
		return types.ObjectNesting_Single
	}
}

func identitySchema(s *tfprotov6.ResourceIdentitySchema) types.IdentitySchema {
	out := types.IdentitySchema{}
	if s == nil {
		return out
	}
	out.Version = s.Version
	for _, a := range s.IdentityAttributes {
		if a == nil {
			continue
		}
		out.Attributes = append(out.Attributes, types.IdentityAttribute{
			Name:              a.Name,
			TypeJson:          typeJSON(a.Type),
			RequiredForImport: a.RequiredForImport,
			OptionalForImport: a.OptionalForImport,
			Description:       a.Description,
		})
	}
	return out
}

func functions(list map[string]*tfprotov6.Function) []types.NamedFunction {
	out := make([]types.NamedFunction, 0, len(list))
	for _, name := range sortedKeys(list) {
		fn := list[name]
		if fn == nil {
			continue
		}
		f := types.Function{
			Summary:            fn.Summary,
			Description:        fn.Description,
			DescriptionKind:    stringKind(fn.DescriptionKind),
			DeprecationMessage: fn.DeprecationMessage,
			VariadicParameter:  witrt.None[types.FunctionParameter](),
			ReturnTypeJson:     `"dynamic"`,
		}
		for _, p := range fn.Parameters {
			if p != nil {
				f.Parameters = append(f.Parameters, parameter(p))
			}
		}
		if fn.VariadicParameter != nil {
			f.VariadicParameter = witrt.Some(parameter(fn.VariadicParameter))
		}
		if fn.Return != nil {
			f.ReturnTypeJson = typeJSON(fn.Return.Type)
		}
		out = append(out, types.NamedFunction{Name: name, Function: f})
	}
	return out
}

func parameter(p *tfprotov6.FunctionParameter) types.FunctionParameter {
	return types.FunctionParameter{
		Name:            p.Name,
		TypeJson:        typeJSON(p.Type),
		AllowNull:       p.AllowNullValue,
		AllowUnknown:    p.AllowUnknownValues,
		Description:     p.Description,
		DescriptionKind: stringKind(p.DescriptionKind),
	}
}

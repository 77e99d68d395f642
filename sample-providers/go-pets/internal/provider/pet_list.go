package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The shelter's pets waiting for a home, which `list "gopets_pet"` finds: `stray-1` to
// `stray-STRAYS` of the species asked for. A real provider would ask its API here.
type petList struct{}

type petListModel struct {
	Species types.String `tfsdk:"species"`
	Strays  types.Int64  `tfsdk:"strays"`
}

// The most pets one listing may ask the shelter for.
const maxStrays = 100_000

var _ list.ListResource = (*petList)(nil)

func newPetList() list.ListResource { return &petList{} }

func (l *petList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pet"
}

func (l *petList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The shelter's pets of one species, waiting to be adopted (imported).",
		Attributes: map[string]schema.Attribute{
			"species": schema.StringAttribute{
				Description: "Which species to list.",
				Required:    true,
			},
			"strays": schema.Int64Attribute{
				Description: "How many strays the shelter holds (default 3).",
				Optional:    true,
			},
		},
	}
}

func (l *petList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var config petListModel
	if diags := req.Config.Get(ctx, &config); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	species := config.Species.ValueString()
	count := int64(3)
	if !config.Strays.IsNull() {
		count = config.Strays.ValueInt64()
	}
	if _, known := knownSpecies[species]; !known || count < 0 || count > maxStrays {
		result := req.NewListResult(ctx)
		result.Diagnostics.AddError("Invalid listing",
			fmt.Sprintf("The shelter holds up to %d pets of the species gopets_species names; asked for %d of %q.", maxStrays, count, species))
		stream.Results = func(push func(list.ListResult) bool) { push(result) }
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for i := int64(1); i <= count; i++ {
			name := fmt.Sprintf("stray-%d", i)
			id := types.StringValue(petID(species, name))
			result := req.NewListResult(ctx)
			result.DisplayName = fmt.Sprintf("%s (%s)", name, species)
			result.Diagnostics.Append(result.Identity.Set(ctx, petIdentity{ID: id})...)
			if req.IncludeResource {
				result.Diagnostics.Append(result.Resource.Set(ctx, petModel{
					ID:      id,
					Name:    types.StringValue(name),
					Species: types.StringValue(species),
					Owner:   types.StringValue("shelter"),
					Tags:    []tagModel{},
				})...)
			}
			if !push(result) {
				return
			}
		}
	}
}

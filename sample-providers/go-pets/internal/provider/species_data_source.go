package provider

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var knownSpecies = map[string]int64{"cat": 4, "dog": 4, "parrot": 2, "snake": 0}

type speciesDataSource struct{}

type speciesModel struct {
	Names []types.String `tfsdk:"names"`
	Legs  types.Map      `tfsdk:"legs"`
}

func newSpeciesDataSource() datasource.DataSource { return &speciesDataSource{} }

func (d *speciesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_species"
}

func (d *speciesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The species a pet may be.",
		Attributes: map[string]schema.Attribute{
			"names": schema.ListAttribute{ElementType: types.StringType, Computed: true, Description: "Species names, sorted."},
			"legs":  schema.MapAttribute{ElementType: types.Int64Type, Computed: true, Description: "Legs per species."},
		},
	}
}

func (d *speciesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model speciesModel
	names := make([]string, 0, len(knownSpecies))
	for name := range knownSpecies {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		model.Names = append(model.Names, types.StringValue(name))
	}
	legs, diags := types.MapValueFrom(ctx, types.Int64Type, knownSpecies)
	resp.Diagnostics.Append(diags...)
	model.Legs = legs
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
}

// Package provider is the go-pets provider: pets with tags and an identity, a data source of
// species, a function, a listing of the shelter's pets (`terraform query`) and an action,
// written with terraform-plugin-framework exactly as for a native provider.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// New returns the provider at version.
func New(version string) provider.Provider {
	return &petsProvider{version: version}
}

type petsProvider struct {
	version string
}

type providerModel struct {
	Owner types.String `tfsdk:"owner"`
}

// The configured owner, handed to resources as provider data.
type config struct {
	owner string
}

var (
	_ provider.Provider                  = (*petsProvider)(nil)
	_ provider.ProviderWithFunctions     = (*petsProvider)(nil)
	_ provider.ProviderWithListResources = (*petsProvider)(nil)
	_ provider.ProviderWithActions       = (*petsProvider)(nil)
)

func (p *petsProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gopets"
	resp.Version = p.version
}

func (p *petsProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Pets, as an example of a terraform-plugin-framework provider run by tfwasm.",
		Attributes: map[string]schema.Attribute{
			"owner": schema.StringAttribute{
				Description: "Who owns the pets this provider creates; shown in each pet's `owner`.",
				Optional:    true,
			},
		},
	}
}

func (p *petsProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c := &config{owner: "nobody"}
	if !model.Owner.IsNull() && !model.Owner.IsUnknown() {
		c.owner = model.Owner.ValueString()
	}
	resp.ResourceData = c
	resp.DataSourceData = c
}

func (p *petsProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newPetResource}
}

func (p *petsProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newSpeciesDataSource}
}

func (p *petsProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newSlugFunction}
}

func (p *petsProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{newPetList}
}

func (p *petsProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{newFeedAction}
}

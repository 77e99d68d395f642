package provider

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

type petResource struct {
	config *config
}

type petModel struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	Species types.String `tfsdk:"species"`
	Owner   types.String `tfsdk:"owner"`
	Tags    []tagModel   `tfsdk:"tag"`
}

type tagModel struct {
	Key   types.String `tfsdk:"key"`
	Value types.String `tfsdk:"value"`
}

var (
	_ resource.ResourceWithConfigure   = (*petResource)(nil)
	_ resource.ResourceWithImportState = (*petResource)(nil)
)

func newPetResource() resource.Resource { return &petResource{} }

func (r *petResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pet"
}

func (r *petResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A pet. Its `id` is derived from its name and species, so renaming it or changing its species makes a new pet.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Description:   "The pet's identifier, `SPECIES-NAME-HASH`.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Description:   "The pet's name.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"species": schema.StringAttribute{
				Description:   "What kind of animal it is.",
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString("cat"),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"owner": schema.StringAttribute{
				Description:   "The provider's configured owner when the pet was created.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"tag": schema.ListNestedBlock{
				Description: "Labels on the pet; they change in place.",
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"key":   schema.StringAttribute{Required: true},
						"value": schema.StringAttribute{Optional: true},
					},
				},
			},
		},
	}
}

func (r *petResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if c, ok := req.ProviderData.(*config); ok {
		r.config = c
	}
}

func petID(species, name string) string {
	h := fnv.New32a()
	h.Write([]byte(species + "/" + name))
	return fmt.Sprintf("%s-%s-%08x", species, strings.ToLower(name), h.Sum32())
}

func (r *petResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan petModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = types.StringValue(petID(plan.Species.ValueString(), plan.Name.ValueString()))
	owner := "nobody"
	if r.config != nil {
		owner = r.config.owner
	}
	plan.Owner = types.StringValue(owner)
	tflog.Info(ctx, "created a pet", map[string]any{"id": plan.ID.ValueString()})
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *petResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state petModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *petResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan petModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *petResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// ImportState takes `SPECIES/NAME`.
func (r *petResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	species, name, ok := strings.Cut(req.ID, "/")
	if !ok || species == "" || name == "" {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected SPECIES/NAME, got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), petID(species, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("species"), species)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("owner"), "imported")...)
}

package provider

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
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

// A pet's identity: its id, by which `import` blocks and `terraform query` name it.
type petIdentity struct {
	ID types.String `tfsdk:"id"`
}

type tagModel struct {
	Key   types.String `tfsdk:"key"`
	Value types.String `tfsdk:"value"`
}

var (
	_ resource.ResourceWithConfigure   = (*petResource)(nil)
	_ resource.ResourceWithImportState = (*petResource)(nil)
	_ resource.ResourceWithIdentity    = (*petResource)(nil)
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

func (r *petResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{
				Description:       "The pet's identifier, `SPECIES-NAME-HASH`.",
				RequiredForImport: true,
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

// parsePetID splits an id into its species and (lower-cased) name.
func parsePetID(id string) (species, name string, ok bool) {
	species, rest, ok := strings.Cut(id, "-")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, "-")
	if i <= 0 || species == "" || len(rest)-i-1 != 8 {
		return "", "", false
	}
	return species, rest[:i], true
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
	resp.Diagnostics.Append(resp.Identity.Set(ctx, petIdentity{ID: plan.ID})...)
}

func (r *petResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state petModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, petIdentity{ID: state.ID})...)
}

func (r *petResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan petModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, petIdentity{ID: plan.ID})...)
}

func (r *petResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// ImportState takes `SPECIES/NAME`, or an identity (an `import` block's `identity`, as
// `terraform query -generate-config-out` writes for a listed pet).
func (r *petResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var id, species, name string
	if req.ID != "" {
		var ok bool
		species, name, ok = strings.Cut(req.ID, "/")
		if !ok || species == "" || name == "" {
			resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected SPECIES/NAME, got %q.", req.ID))
			return
		}
		id = petID(species, name)
	} else {
		var identity petIdentity
		resp.Diagnostics.Append(req.Identity.Get(ctx, &identity)...)
		if resp.Diagnostics.HasError() {
			return
		}
		id = identity.ID.ValueString()
		var ok bool
		if species, name, ok = parsePetID(id); !ok {
			resp.Diagnostics.AddError("Invalid pet identity", fmt.Sprintf("Expected an id SPECIES-NAME-HASH, got %q.", id))
			return
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("species"), species)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("owner"), "imported")...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, petIdentity{ID: types.StringValue(id)})...)
}

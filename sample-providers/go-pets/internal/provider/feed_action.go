package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// `action "gopets_feed"` feeds a pet, reporting each portion as it goes.
type feedAction struct{}

type feedModel struct {
	PetID    types.String `tfsdk:"pet_id"`
	Portions types.Int64  `tfsdk:"portions"`
}

const maxPortions = 10

var _ action.ActionWithValidateConfig = (*feedAction)(nil)

func newFeedAction() action.Action { return &feedAction{} }

func (a *feedAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_feed"
}

func (a *feedAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Feeds a pet.",
		Attributes: map[string]schema.Attribute{
			"pet_id": schema.StringAttribute{
				Description: "The pet to feed (a gopets_pet's id).",
				Required:    true,
			},
			"portions": schema.Int64Attribute{
				Description: fmt.Sprintf("How many portions, 1 to %d (default 1).", maxPortions),
				Optional:    true,
			},
		},
	}
}

func (a *feedAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var config feedModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() || config.Portions.IsNull() || config.Portions.IsUnknown() {
		return
	}
	if n := config.Portions.ValueInt64(); n < 1 || n > maxPortions {
		resp.Diagnostics.AddAttributeError(path.Root("portions"), "Too much or too little food",
			fmt.Sprintf("A pet eats 1 to %d portions, not %d.", maxPortions, n))
	}
}

func (a *feedAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var config feedModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, _, ok := parsePetID(config.PetID.ValueString()); !ok {
		resp.Diagnostics.AddAttributeError(path.Root("pet_id"), "No such pet",
			fmt.Sprintf("Expected a pet id SPECIES-NAME-HASH, got %q.", config.PetID.ValueString()))
		return
	}
	portions := int64(1)
	if !config.Portions.IsNull() {
		portions = config.Portions.ValueInt64()
	}
	for i := int64(1); i <= portions; i++ {
		resp.SendProgress(action.InvokeProgressEvent{
			Message: fmt.Sprintf("fed %s portion %d of %d", config.PetID.ValueString(), i, portions),
		})
	}
	tflog.Info(ctx, "fed a pet", map[string]any{"id": config.PetID.ValueString(), "portions": portions})
}

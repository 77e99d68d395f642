package guest

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	res "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_resource"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
)

// ValidateResourceConfig answers resource.validate-resource-config.
func ValidateResourceConfig(pc types.ProviderContext, req types.ValidateRequest) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		resp, err := provider().ValidateResourceConfig(background(), &tfprotov6.ValidateResourceConfigRequest{
			TypeName: req.TypeName,
			Config:   dynamic(req.Config),
			ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{
				WriteOnlyAttributesAllowed: pc.ClientCapabilities.WriteOnlyAttributesAllowed,
			},
		})
		return diagnostics(answered(resp, err, func(r *tfprotov6.ValidateResourceConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics }))
	}, failed)
}

// UpgradeResourceState answers resource.upgrade-resource-state.
func UpgradeResourceState(pc types.ProviderContext, req res.UpgradeRequest) res.UpgradeResponse {
	return guarded(func() res.UpgradeResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return res.UpgradeResponse{UpgradedState: []byte{0xc0}, Diagnostics: diagnostics(d)}
		}
		resp, err := s.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
			TypeName: req.TypeName,
			Version:  req.Version,
			RawState: &tfprotov6.RawState{JSON: req.RawStateJson},
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.UpgradeResourceStateResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := res.UpgradeResponse{UpgradedState: []byte{0xc0}}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.UpgradedState, bad = msgpack(resp.UpgradedState, resourceType(req.TypeName))
			d = withDiag(d, bad)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) res.UpgradeResponse {
		return res.UpgradeResponse{UpgradedState: []byte{0xc0}, Diagnostics: failed(d)}
	})
}

// ReadResource answers resource.read-resource.
func ReadResource(pc types.ProviderContext, req res.ReadRequest) res.ReadResponse {
	return guarded(func() res.ReadResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return res.ReadResponse{NewState: req.CurrentState, Private: req.Private, Diagnostics: diagnostics(d), NewIdentity: req.CurrentIdentity}
		}
		resp, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
			TypeName:           req.TypeName,
			CurrentState:       dynamic(req.CurrentState),
			Private:            req.Private,
			ProviderMeta:       dynamic(req.ProviderMeta),
			ClientCapabilities: &tfprotov6.ReadResourceClientCapabilities{DeferralAllowed: pc.ClientCapabilities.DeferralAllowed},
			CurrentIdentity:    identityIn(req.CurrentIdentity),
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.ReadResourceResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := res.ReadResponse{NewState: req.CurrentState, Private: req.Private, NewIdentity: req.CurrentIdentity}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.NewState, bad = msgpack(resp.NewState, resourceType(req.TypeName))
			d = withDiag(d, bad)
			out.Private = resp.Private
			out.Deferred = deferredOut(resp.Deferred)
			out.NewIdentity = identityOut(resp.NewIdentity)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) res.ReadResponse {
		return res.ReadResponse{NewState: req.CurrentState, Private: req.Private, NewIdentity: req.CurrentIdentity, Diagnostics: failed(d)}
	})
}

// PlanResourceChange answers resource.plan-resource-change.
func PlanResourceChange(pc types.ProviderContext, req res.PlanRequest) res.PlanResponse {
	return guarded(func() res.PlanResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return res.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diagnostics(d)}
		}
		resp, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName:           req.TypeName,
			PriorState:         dynamic(req.PriorState),
			ProposedNewState:   dynamic(req.ProposedNewState),
			Config:             dynamic(req.Config),
			PriorPrivate:       req.PriorPrivate,
			ProviderMeta:       dynamic(req.ProviderMeta),
			ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: pc.ClientCapabilities.DeferralAllowed},
			PriorIdentity:      identityIn(req.PriorIdentity),
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.PlanResourceChangeResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := res.PlanResponse{PlannedState: req.ProposedNewState}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.PlannedState, bad = msgpack(resp.PlannedState, resourceType(req.TypeName))
			d = withDiag(d, bad)
			out.RequiresReplace = paths(resp.RequiresReplace)
			out.PlannedPrivate = resp.PlannedPrivate
			out.Deferred = deferredOut(resp.Deferred)
			out.PlannedIdentity = identityOut(resp.PlannedIdentity)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) res.PlanResponse {
		return res.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: failed(d)}
	})
}

// ApplyResourceChange answers resource.apply-resource-change.
func ApplyResourceChange(pc types.ProviderContext, req res.ApplyRequest) res.ApplyResponse {
	return guarded(func() res.ApplyResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return res.ApplyResponse{NewState: req.PriorState, Diagnostics: diagnostics(d)}
		}
		resp, err := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
			TypeName:        req.TypeName,
			PriorState:      dynamic(req.PriorState),
			PlannedState:    dynamic(req.PlannedState),
			Config:          dynamic(req.Config),
			PlannedPrivate:  req.PlannedPrivate,
			ProviderMeta:    dynamic(req.ProviderMeta),
			PlannedIdentity: identityIn(req.PlannedIdentity),
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.ApplyResourceChangeResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := res.ApplyResponse{NewState: req.PriorState}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.NewState, bad = msgpack(resp.NewState, resourceType(req.TypeName))
			d = withDiag(d, bad)
			out.Private = resp.Private
			out.NewIdentity = identityOut(resp.NewIdentity)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) res.ApplyResponse {
		return res.ApplyResponse{NewState: req.PriorState, Diagnostics: failed(d)}
	})
}

// ImportResourceState answers resource.import-resource-state.
func ImportResourceState(pc types.ProviderContext, req res.ImportRequest) res.ImportResponse {
	return guarded(func() res.ImportResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return res.ImportResponse{Diagnostics: diagnostics(d)}
		}
		resp, err := s.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{
			TypeName:           req.TypeName,
			ID:                 req.Id,
			ClientCapabilities: &tfprotov6.ImportResourceStateClientCapabilities{DeferralAllowed: pc.ClientCapabilities.DeferralAllowed},
			Identity:           identityIn(req.Identity),
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.ImportResourceStateResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		var out res.ImportResponse
		if resp != nil && err == nil {
			for _, imported := range resp.ImportedResources {
				if imported == nil {
					continue
				}
				state, bad := msgpack(imported.State, resourceType(imported.TypeName))
				d = withDiag(d, bad)
				out.Imported = append(out.Imported, res.ImportedResource{
					TypeName: imported.TypeName,
					State:    state,
					Private:  imported.Private,
					Identity: identityOut(imported.Identity),
				})
			}
			out.Deferred = deferredOut(resp.Deferred)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) res.ImportResponse { return res.ImportResponse{Diagnostics: failed(d)} })
}

// MoveResourceState answers resource.move-resource-state.
func MoveResourceState(pc types.ProviderContext, req res.MoveRequest) res.MoveResponse {
	return guarded(func() res.MoveResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return res.MoveResponse{TargetState: []byte{0xc0}, Diagnostics: diagnostics(d)}
		}
		move := &tfprotov6.MoveResourceStateRequest{
			SourcePrivate:               req.SourcePrivate,
			SourceProviderAddress:       req.SourceProviderAddress,
			SourceSchemaVersion:         req.SourceSchemaVersion,
			SourceState:                 &tfprotov6.RawState{JSON: req.SourceStateJson},
			SourceTypeName:              req.SourceTypeName,
			TargetTypeName:              req.TargetTypeName,
			SourceIdentitySchemaVersion: req.SourceIdentityVersion,
		}
		if req.SourceIdentityJson.IsSome() {
			move.SourceIdentity = &tfprotov6.RawState{JSON: req.SourceIdentityJson.Some()}
		}
		resp, err := s.MoveResourceState(ctx, move)
		d = append(d, answered(resp, err, func(r *tfprotov6.MoveResourceStateResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := res.MoveResponse{TargetState: []byte{0xc0}}
		if resp != nil && err == nil {
			var bad *tfprotov6.Diagnostic
			out.TargetState, bad = msgpack(resp.TargetState, resourceType(req.TargetTypeName))
			d = withDiag(d, bad)
			out.TargetPrivate = resp.TargetPrivate
			out.TargetIdentity = identityOut(resp.TargetIdentity)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) res.MoveResponse {
		return res.MoveResponse{TargetState: []byte{0xc0}, Diagnostics: failed(d)}
	})
}

// UpgradeResourceIdentity answers resource.upgrade-resource-identity.
func UpgradeResourceIdentity(pc types.ProviderContext, req res.UpgradeIdentityRequest) res.UpgradeIdentityResponse {
	return guarded(func() res.UpgradeIdentityResponse {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return res.UpgradeIdentityResponse{Diagnostics: diagnostics(d)}
		}
		resp, err := s.UpgradeResourceIdentity(ctx, &tfprotov6.UpgradeResourceIdentityRequest{
			TypeName:    req.TypeName,
			Version:     req.Version,
			RawIdentity: &tfprotov6.RawState{JSON: req.RawIdentityJson},
		})
		d = append(d, answered(resp, err, func(r *tfprotov6.UpgradeResourceIdentityResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		var out res.UpgradeIdentityResponse
		if resp != nil && err == nil {
			out.UpgradedIdentity = identityOut(resp.UpgradedIdentity)
		}
		out.Diagnostics = diagnostics(d)
		return out
	}, func(d types.Diagnostic) res.UpgradeIdentityResponse {
		return res.UpgradeIdentityResponse{Diagnostics: failed(d)}
	})
}

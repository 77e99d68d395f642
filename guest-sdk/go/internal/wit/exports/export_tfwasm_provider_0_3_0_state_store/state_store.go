// Package export_tfwasm_provider_0_3_0_state_store is the state-store interface's exports,
// which the generated wit_exports calls; each one is internal/guest's.
package export_tfwasm_provider_0_3_0_state_store

import (
	"tfwasm.dev/go/internal/guest"
	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	ss "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_state_store"
)

func StateStoreSchemas() []types.NamedSchema { return guest.StateStoreSchemas() }

func ValidateStateStoreConfig(typeName string, config []uint8) []types.Diagnostic {
	return guest.ValidateStateStoreConfig(typeName, config)
}

func ConfigureStateStore(ctx types.ProviderContext, store ss.Store) []types.Diagnostic {
	return guest.ConfigureStateStore(ctx, store)
}

func ReadState(ctx types.ProviderContext, store ss.Store, stateID string) ss.ReadResponse {
	return guest.ReadState(ctx, store, stateID)
}

func WriteState(ctx types.ProviderContext, store ss.Store, stateID string, state []uint8) []types.Diagnostic {
	return guest.WriteState(ctx, store, stateID, state)
}

func LockState(ctx types.ProviderContext, store ss.Store, stateID string, operation string) ss.LockResponse {
	return guest.LockState(ctx, store, stateID, operation)
}

func UnlockState(ctx types.ProviderContext, store ss.Store, stateID string, lockID string) []types.Diagnostic {
	return guest.UnlockState(ctx, store, stateID, lockID)
}

func GetStates(ctx types.ProviderContext, store ss.Store) ss.StatesResponse {
	return guest.GetStates(ctx, store)
}

func DeleteState(ctx types.ProviderContext, store ss.Store, stateID string) []types.Diagnostic {
	return guest.DeleteState(ctx, store, stateID)
}

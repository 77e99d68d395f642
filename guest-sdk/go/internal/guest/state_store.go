package guest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	ss "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_state_store"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

// stateChunk is the chunk size the guest asks a server for. The host moves whole states
// (chunking what Terraform streams itself); inside the guest they are cut into chunks of
// this size for servers that take them so (terraform-plugin-framework refuses any other
// size but the last) and joined again on the way out.
const stateChunk = 1 << 20

// The state store the server was last configured as, on which server.
var (
	storeServer tfprotov6.ProviderServer
	storeType   string
	storeConfig []byte
	storeChunk  int64
)

// StateStoreSchemas answers state-store.state-store-schemas.
func StateStoreSchemas() []types.NamedSchema {
	return guarded(func() []types.NamedSchema {
		all, _ := providerSchemas()
		if all == nil {
			return nil
		}
		return named(all.StateStoreSchemas)
	}, func(types.Diagnostic) []types.NamedSchema { return nil })
}

func stateStoreServer(s tfprotov6.ProviderServer) tfprotov6.StateStoreServer {
	st, _ := s.(tfprotov6.StateStoreServer)
	return st
}

// ValidateStateStoreConfig answers state-store.validate-state-store-config.
func ValidateStateStoreConfig(typeName string, config []uint8) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		st := stateStoreServer(provider())
		if st == nil {
			return diagnostics(unsupported("state store", typeName))
		}
		resp, err := st.ValidateStateStoreConfig(background(), &tfprotov6.ValidateStateStoreConfigRequest{
			TypeName: typeName,
			Config:   dynamic(config),
		})
		return diagnostics(answered(resp, err, func(r *tfprotov6.ValidateStateStoreConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics }))
	}, failed)
}

// storeFor returns the server configured as store: the provider configured as the host
// says, then ConfigureStateStore whenever the store differs from the one it was last
// configured as, or the provider was configured since (an instance may serve a store it
// never saw configured), or always.
func storeFor(ctx context.Context, pc types.ProviderContext, store ss.Store, always bool) (tfprotov6.StateStoreServer, []*tfprotov6.Diagnostic) {
	s, d := configuredFor(ctx, pc)
	if s == nil {
		return nil, d
	}
	st := stateStoreServer(s)
	if st == nil {
		return nil, append(d, unsupported("state store", store.TypeName)...)
	}
	if !always && storeServer == s && storeType == store.TypeName && bytes.Equal(storeConfig, store.Config) {
		return st, d
	}
	storeServer = nil
	resp, err := st.ConfigureStateStore(ctx, &tfprotov6.ConfigureStateStoreRequest{
		TypeName:     store.TypeName,
		Config:       dynamic(store.Config),
		Capabilities: &tfprotov6.ConfigureStateStoreClientCapabilities{ChunkSize: stateChunk},
	})
	d = append(d, answered(resp, err, func(r *tfprotov6.ConfigureStateStoreResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
	if resp == nil || err != nil || hasError(d) {
		return nil, d
	}
	storeChunk = stateChunk
	if resp.Capabilities != nil && resp.Capabilities.ChunkSize > 0 {
		storeChunk = resp.Capabilities.ChunkSize
	}
	storeServer, storeType, storeConfig = s, store.TypeName, bytes.Clone(store.Config)
	return st, d
}

// ConfigureStateStore answers state-store.configure-state-store: always asks the server,
// whose checks (is the store reachable?) are what Terraform runs it for.
func ConfigureStateStore(pc types.ProviderContext, store ss.Store) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		_, d := storeFor(background(), pc, store, true)
		return diagnostics(d)
	}, failed)
}

// ReadState answers state-store.read-state: the server's chunks joined, each where the one
// before ended.
func ReadState(pc types.ProviderContext, store ss.Store, stateID string) ss.ReadResponse {
	return guarded(func() ss.ReadResponse {
		ctx := background()
		st, d := storeFor(ctx, pc, store, false)
		if st == nil {
			return ss.ReadResponse{Diagnostics: diagnostics(d)}
		}
		stream, err := st.ReadStateBytes(ctx, &tfprotov6.ReadStateBytesRequest{TypeName: store.TypeName, StateID: stateID})
		d = append(d, answered(stream, err, func(*tfprotov6.ReadStateBytesStream) []*tfprotov6.Diagnostic { return nil })...)
		if stream == nil || err != nil || stream.Chunks == nil {
			return ss.ReadResponse{Diagnostics: diagnostics(d)}
		}
		var state []byte
		total := int64(-1)
		for chunk := range stream.Chunks {
			d = append(d, chunk.Diagnostics...)
			if len(chunk.Bytes) == 0 {
				continue
			}
			if chunk.Range.Start != int64(len(state)) || chunk.Range.End != chunk.Range.Start+int64(len(chunk.Bytes))-1 ||
				chunk.TotalLength < int64(len(state))+int64(len(chunk.Bytes)) || (total >= 0 && chunk.TotalLength != total) {
				d = append(d, badChunk(fmt.Sprintf("a chunk of %d bytes at %d-%d after %d bytes", len(chunk.Bytes), chunk.Range.Start, chunk.Range.End, len(state))))
				return ss.ReadResponse{Diagnostics: diagnostics(d)}
			}
			total = chunk.TotalLength
			state = append(state, chunk.Bytes...)
		}
		if total >= 0 && int64(len(state)) != total {
			d = append(d, badChunk(fmt.Sprintf("%d bytes of a state said to hold %d", len(state), total)))
			return ss.ReadResponse{Diagnostics: diagnostics(d)}
		}
		out := ss.ReadResponse{Diagnostics: diagnostics(d)}
		if state != nil && !hasError(d) {
			out.State = witrt.Some(state)
		}
		return out
	}, func(d types.Diagnostic) ss.ReadResponse {
		return ss.ReadResponse{Diagnostics: failed(d)}
	})
}

func badChunk(what string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Provider returned a broken state",
		Detail:   "The state store's chunks do not make up one state: " + what + ".",
	}
}

// WriteState answers state-store.write-state: the state cut into the negotiated chunks.
func WriteState(pc types.ProviderContext, store ss.Store, stateID string, state []uint8) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		ctx := background()
		st, d := storeFor(ctx, pc, store, false)
		if st == nil {
			return diagnostics(d)
		}
		total := int64(len(state))
		chunks := func(yield func(*tfprotov6.WriteStateBytesChunk, []*tfprotov6.Diagnostic) bool) {
			for start := int64(0); start == 0 || start < total; start += storeChunk {
				end := min(start+storeChunk, total)
				chunk := &tfprotov6.WriteStateBytesChunk{StateByteChunk: tfprotov6.StateByteChunk{
					Bytes:       state[start:end],
					TotalLength: total,
					Range:       tfprotov6.StateByteRange{Start: start, End: end - 1},
				}}
				if start == 0 {
					chunk.Meta = &tfprotov6.WriteStateChunkMeta{TypeName: store.TypeName, StateID: stateID}
				}
				if !yield(chunk, nil) {
					return
				}
			}
		}
		resp, err := st.WriteStateBytes(ctx, &tfprotov6.WriteStateBytesStream{Chunks: chunks})
		d = append(d, answered(resp, err, func(r *tfprotov6.WriteStateBytesResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		return diagnostics(d)
	}, failed)
}

// LockState answers state-store.lock-state.
func LockState(pc types.ProviderContext, store ss.Store, stateID string, operation string) ss.LockResponse {
	return guarded(func() ss.LockResponse {
		ctx := background()
		st, d := storeFor(ctx, pc, store, false)
		if st == nil {
			return ss.LockResponse{Diagnostics: diagnostics(d)}
		}
		resp, err := st.LockState(ctx, &tfprotov6.LockStateRequest{TypeName: store.TypeName, StateID: stateID, Operation: operation})
		d = append(d, answered(resp, err, func(r *tfprotov6.LockStateResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := ss.LockResponse{Diagnostics: diagnostics(d)}
		if resp != nil && err == nil {
			out.LockId = resp.LockID
		}
		return out
	}, func(d types.Diagnostic) ss.LockResponse {
		return ss.LockResponse{Diagnostics: failed(d)}
	})
}

// UnlockState answers state-store.unlock-state.
func UnlockState(pc types.ProviderContext, store ss.Store, stateID string, lockID string) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		ctx := background()
		st, d := storeFor(ctx, pc, store, false)
		if st == nil {
			return diagnostics(d)
		}
		resp, err := st.UnlockState(ctx, &tfprotov6.UnlockStateRequest{TypeName: store.TypeName, StateID: stateID, LockID: lockID})
		return diagnostics(append(d, answered(resp, err, func(r *tfprotov6.UnlockStateResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...))
	}, failed)
}

// GetStates answers state-store.get-states.
func GetStates(pc types.ProviderContext, store ss.Store) ss.StatesResponse {
	return guarded(func() ss.StatesResponse {
		ctx := background()
		st, d := storeFor(ctx, pc, store, false)
		if st == nil {
			return ss.StatesResponse{Diagnostics: diagnostics(d)}
		}
		resp, err := st.GetStates(ctx, &tfprotov6.GetStatesRequest{TypeName: store.TypeName})
		d = append(d, answered(resp, err, func(r *tfprotov6.GetStatesResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...)
		out := ss.StatesResponse{Diagnostics: diagnostics(d)}
		if resp != nil && err == nil {
			out.StateIds = resp.StateIDs
		}
		return out
	}, func(d types.Diagnostic) ss.StatesResponse {
		return ss.StatesResponse{Diagnostics: failed(d)}
	})
}

// DeleteState answers state-store.delete-state.
func DeleteState(pc types.ProviderContext, store ss.Store, stateID string) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		ctx := background()
		st, d := storeFor(ctx, pc, store, false)
		if st == nil {
			return diagnostics(d)
		}
		resp, err := st.DeleteState(ctx, &tfprotov6.DeleteStateRequest{TypeName: store.TypeName, StateID: stateID})
		return diagnostics(append(d, answered(resp, err, func(r *tfprotov6.DeleteStateResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })...))
	}, failed)
}

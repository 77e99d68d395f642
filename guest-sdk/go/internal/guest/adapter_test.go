package guest

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	cg "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_config_generation"
	lr "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_list_resource"
	ss "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_state_store"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

// fakeServer is a ProviderServer with list resources and a state store; the methods it
// does not override are nil and panic if called.
type fakeServer struct {
	tfprotov6.ProviderServer
	listed   int
	listings int
	// The first listed object is named thing <first>; failAt, when not 0, is the result
	// that is an error instead.
	first, failAt int
	generated     int
	listedIn      context.Context
	chunk         int64
	states        map[string][]byte
	configured    int
	generates     bool
}

func (f *fakeServer) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return &tfprotov6.GetProviderSchemaResponse{
		ServerCapabilities: &tfprotov6.ServerCapabilities{GenerateResourceConfig: f.generates},
		ResourceSchemas: map[string]*tfprotov6.Schema{"fake_thing": {Block: &tfprotov6.SchemaBlock{
			Attributes: []*tfprotov6.SchemaAttribute{
				{Name: "id", Type: tftypes.String, Optional: true, Computed: true},
				{Name: "name", Type: tftypes.String, Required: true},
				{Name: "note", Type: tftypes.String, Optional: true},
				{Name: "etag", Type: tftypes.String, Computed: true},
			},
			BlockTypes: []*tfprotov6.SchemaNestedBlock{{
				TypeName: "rule",
				Nesting:  tfprotov6.SchemaNestedBlockNestingModeList,
				Block: &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{
					{Name: "cidr", Type: tftypes.String, Required: true},
					{Name: "hash", Type: tftypes.String, Computed: true},
				}},
			}},
		}}},
	}, nil
}

// serverConfig is what the fake server generates: an empty map, never the adapter's answer.
var serverConfig = []byte{0x80}

func (f *fakeServer) GenerateResourceConfig(context.Context, *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	f.generated++
	return &tfprotov6.GenerateResourceConfigResponse{Config: &tfprotov6.DynamicValue{MsgPack: serverConfig}}, nil
}

func (f *fakeServer) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (f *fakeServer) GetResourceIdentitySchemas(context.Context, *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return &tfprotov6.GetResourceIdentitySchemasResponse{}, nil
}

func (f *fakeServer) ValidateListResourceConfig(context.Context, *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	return &tfprotov6.ValidateListResourceConfigResponse{}, nil
}

func (f *fakeServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	f.listings++
	f.listedIn = ctx
	return &tfprotov6.ListResourceServerStream{Results: func(push func(tfprotov6.ListResourceResult) bool) {
		for i := f.first; i < f.first+f.listed; i++ {
			result := tfprotov6.ListResourceResult{DisplayName: fmt.Sprint("thing ", i)}
			if f.failAt != 0 && i == f.failAt {
				result.Diagnostics = []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityError, Summary: "cannot list thing"}}
			} else {
				id, _ := tfprotov6.NewDynamicValue(tftypes.String, tftypes.NewValue(tftypes.String, fmt.Sprint(i)))
				result.Identity = &tfprotov6.ResourceIdentityData{IdentityData: &id}
			}
			if !push(result) {
				return
			}
		}
	}}, nil
}

func (f *fakeServer) ValidateStateStoreConfig(context.Context, *tfprotov6.ValidateStateStoreConfigRequest) (*tfprotov6.ValidateStateStoreConfigResponse, error) {
	return &tfprotov6.ValidateStateStoreConfigResponse{}, nil
}

// ConfigureStateStore answers with a chunk size of its own, as a server may.
func (f *fakeServer) ConfigureStateStore(context.Context, *tfprotov6.ConfigureStateStoreRequest) (*tfprotov6.ConfigureStateStoreResponse, error) {
	f.configured++
	return &tfprotov6.ConfigureStateStoreResponse{Capabilities: &tfprotov6.StateStoreServerCapabilities{ChunkSize: f.chunk}}, nil
}

// WriteStateBytes refuses chunks of another size than the negotiated one, as
// terraform-plugin-framework does.
func (f *fakeServer) WriteStateBytes(_ context.Context, stream *tfprotov6.WriteStateBytesStream) (*tfprotov6.WriteStateBytesResponse, error) {
	var id string
	var state []byte
	for chunk := range stream.Chunks {
		if chunk.Meta != nil {
			id = chunk.Meta.StateID
		}
		last := chunk.Range.End == chunk.TotalLength-1
		if (!last && int64(len(chunk.Bytes)) != f.chunk) || int64(len(chunk.Bytes)) > f.chunk || chunk.Range.Start != int64(len(state)) {
			return nil, fmt.Errorf("chunk of %d at %d", len(chunk.Bytes), chunk.Range.Start)
		}
		state = append(state, chunk.Bytes...)
	}
	f.states[id] = state
	return &tfprotov6.WriteStateBytesResponse{}, nil
}

func (f *fakeServer) ReadStateBytes(_ context.Context, req *tfprotov6.ReadStateBytesRequest) (*tfprotov6.ReadStateBytesStream, error) {
	state := f.states[req.StateID]
	return &tfprotov6.ReadStateBytesStream{Chunks: func(push func(tfprotov6.ReadStateByteChunk) bool) {
		for start := 0; start < len(state); start += int(f.chunk) {
			end := min(start+int(f.chunk), len(state))
			if !push(tfprotov6.ReadStateByteChunk{StateByteChunk: tfprotov6.StateByteChunk{
				Bytes: state[start:end], TotalLength: int64(len(state)),
				Range: tfprotov6.StateByteRange{Start: int64(start), End: int64(end - 1)},
			}}) {
				return
			}
		}
	}}, nil
}

func (f *fakeServer) GetStates(context.Context, *tfprotov6.GetStatesRequest) (*tfprotov6.GetStatesResponse, error) {
	return &tfprotov6.GetStatesResponse{}, nil
}

func (f *fakeServer) DeleteState(context.Context, *tfprotov6.DeleteStateRequest) (*tfprotov6.DeleteStateResponse, error) {
	return &tfprotov6.DeleteStateResponse{}, nil
}

func (f *fakeServer) LockState(context.Context, *tfprotov6.LockStateRequest) (*tfprotov6.LockStateResponse, error) {
	return &tfprotov6.LockStateResponse{LockID: "lock-1"}, nil
}

func (f *fakeServer) UnlockState(context.Context, *tfprotov6.UnlockStateRequest) (*tfprotov6.UnlockStateResponse, error) {
	return &tfprotov6.UnlockStateResponse{}, nil
}

// serving makes f the provider's server for one test.
func serving(t *testing.T, f *fakeServer) {
	Register(func() tfprotov6.ProviderServer { return f })
	server, configured, schemas, storeServer = nil, nil, nil, nil
	t.Cleanup(func() { factory, server, configured, schemas, storeServer = nil, nil, nil, nil, nil })
}

func TestAListingLongerThanAPageIsResumedFromItsCursorInOrder(t *testing.T) {
	f := &fakeServer{listed: 2*listPageObjects + 7}
	serving(t, f)
	var names []string
	cursor := witrt.None[[]uint8]()
	for pages := 1; ; pages++ {
		page := ListResource(types.ProviderContext{}, lr.ListRequest{TypeName: "fake_thing", Limit: 1 << 20, Cursor: cursor})
		if len(page.Diagnostics) != 0 {
			t.Fatalf("page %d: %v", pages, page.Diagnostics)
		}
		for _, o := range page.Objects {
			names = append(names, o.DisplayName)
		}
		select {
		case <-f.listedIn.Done():
		default:
			t.Fatal("the listing's context is not done when its page is: a producer it started runs on")
		}
		if page.Next.IsNone() {
			if pages != 3 {
				t.Fatalf("%d pages, want 3", pages)
			}
			break
		}
		cursor = page.Next
	}
	if len(names) != f.listed || f.listings != 3 {
		t.Fatalf("%d objects in %d listings, want %d in 3", len(names), f.listings, f.listed)
	}
	for i, n := range names {
		if n != fmt.Sprint("thing ", i) {
			t.Fatalf("object %d is %q", i, n)
		}
	}
	bad := ListResource(types.ProviderContext{}, lr.ListRequest{TypeName: "fake_thing", Cursor: witrt.Some([]byte{1})})
	if len(bad.Diagnostics) != 1 || bad.Diagnostics[0].Summary != "Invalid listing cursor" {
		t.Fatalf("a foreign cursor: %v", bad.Diagnostics)
	}
}

func TestAStateIsWrittenAndReadInTheServersChunksAndComesBackWhole(t *testing.T) {
	f := &fakeServer{chunk: 7, states: map[string][]byte{}}
	serving(t, f)
	store := ss.Store{TypeName: "fake_store", Config: []byte{0x80}}
	for _, size := range []int{1, 7, 8, 100} {
		state := bytes.Repeat([]byte("terraform"), size)[:size*3]
		if d := WriteState(types.ProviderContext{}, store, "default", state); len(d) != 0 {
			t.Fatalf("write of %d bytes: %v", len(state), d)
		}
		read := ReadState(types.ProviderContext{}, store, "default")
		if len(read.Diagnostics) != 0 || read.State.IsNone() || !bytes.Equal(read.State.Some(), state) {
			t.Fatalf("read of %d bytes: %v", len(state), read.Diagnostics)
		}
	}
	if f.configured != 1 {
		t.Fatalf("configured %d times for one store", f.configured)
	}
	if read := ReadState(types.ProviderContext{}, store, "none"); read.State.IsSome() {
		t.Fatal("a state that does not exist came back")
	}
	ReadState(types.ProviderContext{}, ss.Store{TypeName: "fake_store", Config: []byte{0x81, 0xa1, 'x', 0xc0}}, "default")
	if f.configured != 2 {
		t.Fatal("another store's configuration did not configure the server again")
	}
	if lock := LockState(types.ProviderContext{}, store, "default", "apply"); lock.LockId != "lock-1" {
		t.Fatalf("lock ID %q", lock.LockId)
	}
}

func TestConfigurationIsGeneratedFromStateWhenTheServerDoesNot(t *testing.T) {
	f := &fakeServer{}
	serving(t, f)
	schemas, _ := providerSchemas()
	ty := schemas.ResourceSchemas["fake_thing"].ValueType()
	rule := ty.(tftypes.Object).AttributeTypes["rule"]
	ruleTy := rule.(tftypes.List).ElementType
	state, _ := tfprotov6.NewDynamicValue(ty, tftypes.NewValue(ty, map[string]tftypes.Value{
		"id":   tftypes.NewValue(tftypes.String, "x-1"),
		"name": tftypes.NewValue(tftypes.String, "x"),
		"note": tftypes.NewValue(tftypes.String, ""),
		"etag": tftypes.NewValue(tftypes.String, "abc"),
		"rule": tftypes.NewValue(rule, []tftypes.Value{tftypes.NewValue(ruleTy, map[string]tftypes.Value{
			"cidr": tftypes.NewValue(tftypes.String, "10.0.0.0/8"),
			"hash": tftypes.NewValue(tftypes.String, "h"),
		})}),
	}))
	generated := GenerateResourceConfig(types.ProviderContext{}, cg.GenerateRequest{TypeName: "fake_thing", State: state.MsgPack})
	if len(generated.Diagnostics) != 0 {
		t.Fatal(generated.Diagnostics)
	}
	got, err := (&tfprotov6.DynamicValue{MsgPack: generated.Config}).Unmarshal(ty)
	if err != nil {
		t.Fatal(err)
	}
	want := tftypes.NewValue(ty, map[string]tftypes.Value{
		"id":   tftypes.NewValue(tftypes.String, nil),
		"name": tftypes.NewValue(tftypes.String, "x"),
		"note": tftypes.NewValue(tftypes.String, nil),
		"etag": tftypes.NewValue(tftypes.String, nil),
		"rule": tftypes.NewValue(rule, []tftypes.Value{tftypes.NewValue(ruleTy, map[string]tftypes.Value{
			"cidr": tftypes.NewValue(tftypes.String, "10.0.0.0/8"),
			"hash": tftypes.NewValue(tftypes.String, nil),
		})}),
	})
	if !got.Equal(want) {
		t.Fatalf("generated %v, want %v", got, want)
	}
}

func TestAServerThatGeneratesConfigurationIsAsked(t *testing.T) {
	f := &fakeServer{generates: true}
	serving(t, f)
	generated := GenerateResourceConfig(types.ProviderContext{}, cg.GenerateRequest{TypeName: "fake_thing", State: []byte{0x80}})
	if len(generated.Diagnostics) != 0 || !bytes.Equal(generated.Config, serverConfig) || f.generated != 1 {
		t.Fatalf("%v %x, asked %d times", generated.Diagnostics, generated.Config, f.generated)
	}
}

// page lists one page of fake_thing from cursor.
func page(cursor witrt.Option[[]uint8]) lr.ListPage {
	return ListResource(types.ProviderContext{}, lr.ListRequest{TypeName: "fake_thing", Limit: 1 << 20, Cursor: cursor})
}

func TestAListingThatChangedBetweenPagesIsAnErrorNotASkip(t *testing.T) {
	f := &fakeServer{listed: listPageObjects + 10}
	serving(t, f)
	first := page(witrt.None[[]uint8]())
	if first.Next.IsNone() || len(first.Objects) != listPageObjects {
		t.Fatalf("%d objects, next %v", len(first.Objects), first.Next.IsSome())
	}
	f.first = 1 // thing 0 is gone: every later object moved up one
	second := page(first.Next)
	if len(second.Objects) != 0 || len(second.Diagnostics) != 1 || second.Diagnostics[0].Summary != "Listing changed while it was read" {
		t.Fatalf("%d objects, %v", len(second.Objects), second.Diagnostics)
	}
	f.first, f.listed = 0, 10 // shorter than what was already returned
	third := page(first.Next)
	if len(third.Diagnostics) != 1 || third.Diagnostics[0].Summary != "Listing changed while it was read" {
		t.Fatalf("%v", third.Diagnostics)
	}
}

func TestAListingEndsAtItsFirstErrorInOrder(t *testing.T) {
	serving(t, &fakeServer{listed: 10, failAt: 4})
	p := page(witrt.None[[]uint8]())
	if len(p.Objects) != 5 || p.Next.IsSome() {
		t.Fatalf("%d objects, next %v", len(p.Objects), p.Next.IsSome())
	}
	failed := p.Objects[4]
	if !bytes.Equal(failed.Identity, []byte{0xc0}) || failed.ResourceObject.IsSome() ||
		len(failed.Diagnostics) != 1 || failed.Diagnostics[0].Summary != "cannot list thing" {
		t.Fatalf("the error is not a diagnostics-only event in place: %+v", failed)
	}
	if p.Objects[3].DisplayName != "thing 3" {
		t.Fatalf("%q", p.Objects[3].DisplayName)
	}
}

func TestAStoreIsConfiguredAgainAfterTheProviderIs(t *testing.T) {
	f := &fakeServer{chunk: 7, states: map[string][]byte{}}
	serving(t, f)
	store := ss.Store{TypeName: "fake_store", Config: []byte{0x80}}
	withConfig := func(config []byte) types.ProviderContext {
		return types.ProviderContext{Config: witrt.Some(config)}
	}
	GetStates(withConfig([]byte{0x80}), store)
	GetStates(withConfig([]byte{0x80}), store)
	if f.configured != 1 {
		t.Fatalf("configured %d times", f.configured)
	}
	// The same server object (a factory may return one), configured anew: the store's
	// provider data may have changed.
	GetStates(withConfig([]byte{0x81, 0xa1, 'x', 0xc0}), store)
	if f.configured != 2 {
		t.Fatalf("configured %d times after the provider was", f.configured)
	}
	if ConfigureStateStore(withConfig([]byte{0x81, 0xa1, 'x', 0xc0}), store); f.configured != 3 {
		t.Fatal("ConfigureStateStore did not reach the server")
	}
}

// Package guest is what each export of the component does: it calls the provider's
// tfprotov6.ProviderServer in-process and converts between terraform-plugin-go's types and
// the WIT bindings'. The host keeps no Go state alive between calls except what this
// package holds: the server, and the configuration it was last configured with.
package guest

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	_ "unsafe" // for go:linkname

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	"tfwasm.dev/go/internal/witrt"
)

// A component is a reactor: the Go runtime starts and package initialisers run, but the
// provider's main does not. Its main is where it calls tfwasm.Serve, so the first call runs
// it once.
//
//go:linkname providerMain main.main
func providerMain()

var (
	factory    func() tfprotov6.ProviderServer
	mainCalled bool
	server     tfprotov6.ProviderServer
	// The configuration server was configured with; nil when it is not configured.
	configured []byte
)

// Register makes factory the source of the provider's server (tfwasm.Serve).
func Register(f func() tfprotov6.ProviderServer) {
	factory = f
}

// provider returns the server, running the provider's main first if nothing has registered.
func provider() tfprotov6.ProviderServer {
	if factory == nil && !mainCalled {
		mainCalled = true
		providerMain()
	}
	if factory == nil {
		panic("the provider's main did not call tfwasm.Serve")
	}
	if server == nil {
		server = factory()
	}
	return server
}

// configuredFor returns the server configured with what the host says ConfigureProvider
// accepted. An instance may serve calls of a run it has not seen configure, or outlive a
// configuration: it configures its own server whenever the configuration differs.
func configuredFor(ctx context.Context, pc types.ProviderContext) (tfprotov6.ProviderServer, []*tfprotov6.Diagnostic) {
	s := provider()
	if pc.Config.IsNone() {
		if configured != nil {
			// Configured for another run: start again from an unconfigured server.
			server, configured, storeServer = nil, nil, nil
			s = provider()
		}
		return s, nil
	}
	config := pc.Config.Some()
	if configured != nil && bytes.Equal(configured, config) {
		return s, nil
	}
	// A store configured before captured the provider's old data.
	storeServer = nil
	resp, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		TerraformVersion: pc.TerraformVersion,
		Config:           dynamic(config),
		ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{
			DeferralAllowed: pc.ClientCapabilities.DeferralAllowed,
		},
	})
	diags := answered(resp, err, func(r *tfprotov6.ConfigureProviderResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
	if hasError(diags) {
		server, configured, storeServer = nil, nil, nil
		return nil, diags
	}
	configured = bytes.Clone(config)
	return s, diags
}

// answered returns a response's diagnostics, or the error terraform-plugin-go servers
// return instead of an answer as one.
func answered[R any](resp *R, err error, diags func(*R) []*tfprotov6.Diagnostic) []*tfprotov6.Diagnostic {
	if err != nil {
		return []*tfprotov6.Diagnostic{{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  "Provider failed",
			Detail:   err.Error(),
		}}
	}
	if resp == nil {
		return []*tfprotov6.Diagnostic{{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  "Provider returned no response",
			Detail:   "The provider's server returned neither a response nor an error.",
		}}
	}
	return diags(resp)
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// guarded runs call, turning a Go panic into an error diagnostic with its message and
// goroutine stack (what a native provider would print before crashing). The server that
// panicked is dropped: the next call starts from a fresh one.
func guarded[T any](call func() T, failed func(types.Diagnostic) T) (out T) {
	witrt.CallStarted()
	defer witrt.CallEnded()
	var cancel context.CancelFunc
	callContext, cancel = context.WithCancel(withLoggers())
	defer func() {
		// What the call started and left running (a listing's producer stopped at a page's
		// end) sees its context done, as a native server's does when its stream ends.
		cancel()
		callContext = nil
	}()
	defer func() {
		if p := recover(); p != nil {
			server, configured, storeServer = nil, nil, nil
			out = failed(types.Diagnostic{
				Severity: types.Severity_Error,
				Summary:  "Provider panicked",
				Detail:   fmt.Sprintf("The provider panicked: %v\n\n%s", p, debug.Stack()),
			})
		}
	}()
	return call()
}

// callContext is the context of the call being served (calls into an instance come one at
// a time), cancelled when the call returns.
var callContext context.Context

// background is the context each call runs in: one holding the root loggers, done when the
// call returns.
func background() context.Context {
	if callContext != nil {
		return callContext
	}
	return withLoggers()
}

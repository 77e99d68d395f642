// Package tfwasm serves a Terraform provider written with terraform-plugin-framework (or any
// terraform-plugin-go tfprotov6.ProviderServer) as a tfwasm component: a WebAssembly
// provider that the tfwasm host runs sandboxed, under the fuel, memory, time, files, env
// vars and HTTP hosts its operator grants.
//
// A provider's main calls Serve exactly where a native one calls providerserver.Serve:
//
//	func main() {
//		tfwasm.Serve(providerserver.NewProtocol6(provider.New(version)))
//	}
//
// and `tfwasm build-go . -o provider.wasm` builds the component. The provider's own code
// does not change: Serve calls the ProviderServer in-process for every call the host makes,
// with no gRPC and no go-plugin at run time. Built natively (GOOS other than wasip1), Serve
// serves the same provider over gRPC as terraform-plugin-go does, so `go build` and
// `go test` keep working.
package tfwasm

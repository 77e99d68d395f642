//! Generates the tfplugin6 and go-plugin gRPC code with a pure-Rust protobuf compiler
//! (protox), so building needs no system `protoc`.

fn main() {
    let protos = ["proto/tfplugin6.proto", "proto/plugin.proto"];
    for proto in protos {
        println!("cargo:rerun-if-changed={proto}");
    }
    let descriptors = protox::compile(protos, ["proto"]).expect("the .proto files compile");
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)
        .expect("code generation succeeds");
}

//! `independent-random`: the independent native baseline of `make bench`.
//!
//! hashicorp/random's `random_string` (the same schema, defaults, validation and replace
//! rules as tfwasm's random sample) written on the `tf-provider` crate, a native Rust
//! tfplugin6 provider framework that shares no code with tfwasm. tfwasm's Terraform-level
//! figures are compared with this provider, installed from the same filesystem mirror.
//!
//! One change to stock tf-provider 0.2.2: its accepted sockets get TCP_NODELAY (see
//! [`nodelay`]), without which every start stalls ~40 ms on Nagle plus delayed ACK and the
//! baseline would flatter tfwasm.

mod nodelay;
mod random_string;

use std::collections::HashMap;

use async_trait::async_trait;
use tf_provider::schema::{Block, Description, Schema};
use tf_provider::value::ValueEmpty;
use tf_provider::{DynamicDataSource, DynamicResource, Provider, map, serve};

struct RandomProvider;

#[async_trait]
impl Provider for RandomProvider {
    type Config<'a> = ValueEmpty;
    type MetaState<'a> = ValueEmpty;

    fn schema(&self, _diags: &mut tf_provider::Diagnostics) -> Option<Schema> {
        Some(Schema {
            version: 0,
            block: Block {
                description: Description::plain("random, natively on tf-provider"),
                ..Default::default()
            },
        })
    }

    async fn configure<'a>(
        &self,
        _diags: &mut tf_provider::Diagnostics,
        _terraform_version: String,
        _config: Self::Config<'a>,
    ) -> Option<()> {
        Some(())
    }

    fn get_resources(
        &self,
        _diags: &mut tf_provider::Diagnostics,
    ) -> Option<HashMap<String, Box<dyn DynamicResource>>> {
        Some(map! { "string" => random_string::RandomString })
    }

    fn get_data_sources(
        &self,
        _diags: &mut tf_provider::Diagnostics,
    ) -> Option<HashMap<String, Box<dyn DynamicDataSource>>> {
        Some(HashMap::new())
    }
}

fn main() -> anyhow::Result<()> {
    nodelay::on_announced_listener()?;
    tokio::runtime::Runtime::new()?.block_on(serve("random", RandomProvider))
}

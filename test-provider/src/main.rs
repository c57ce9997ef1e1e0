//! `terraform-provider-fake`: a test-only Terraform provider for tfgate.
//!
//! Served as `registry.terraform.io/tfgate/fake` 0.1.0 (plugin protocol v6).
//! One resource, `fake_thing`, replays chosen error text through real Terraform
//! and probes what the provider process can read (for sandbox escape tests); one data
//! source, `fake_fetch`, makes a plan-time HTTP request (for egress tests).
//! See `README.md` next to this file for the attribute reference.

mod fetch;
mod thing;

use std::collections::HashMap;

use anyhow::Result;
use async_trait::async_trait;
use tf_provider::schema::{Block, Description, Schema};
use tf_provider::value::ValueEmpty;
use tf_provider::{map, serve, Diagnostics, DynamicDataSource, DynamicResource, Provider};

use crate::fetch::FetchDataSource;
use crate::thing::ThingResource;

#[derive(Debug, Default, Clone)]
struct FakeProvider;

#[async_trait]
impl Provider for FakeProvider {
    type Config<'a> = ValueEmpty;
    type MetaState<'a> = ValueEmpty;

    fn schema(&self, _diags: &mut Diagnostics) -> Option<Schema> {
        Some(Schema {
            version: 1,
            block: Block {
                description: Description::plain("tfgate's fake provider for tests"),
                ..Default::default()
            },
        })
    }

    async fn validate<'a>(
        &self,
        _diags: &mut Diagnostics,
        _config: Self::Config<'a>,
    ) -> Option<()> {
        Some(())
    }

    async fn configure<'a>(
        &self,
        _diags: &mut Diagnostics,
        _terraform_version: String,
        _config: Self::Config<'a>,
    ) -> Option<()> {
        Some(())
    }

    fn get_resources(
        &self,
        _diags: &mut Diagnostics,
    ) -> Option<HashMap<String, Box<dyn DynamicResource>>> {
        Some(map! { "thing" => ThingResource })
    }

    fn get_data_sources(
        &self,
        _diags: &mut Diagnostics,
    ) -> Option<HashMap<String, Box<dyn DynamicDataSource>>> {
        Some(map! { "fetch" => FetchDataSource })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    serve("fake", FakeProvider).await
}

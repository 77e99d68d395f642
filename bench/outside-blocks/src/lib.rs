//! `blocks_firewall`: a firewall with a set of `rule` blocks of five plain attributes, no
//! element matching and no custom equality, written as the scaffold of `tfwasm new` teaches
//! (models as structs). `make bench` plans and applies it with 1,000 and 10,000 rules.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::schema::Block;

pub struct ProviderBlocks;

impl Provider for ProviderBlocks {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Firewall)]
    }
}

tfwasm_sdk::export_provider!(ProviderBlocks);

/// One `rule` block.
#[derive(Serialize, Deserialize)]
struct Rule {
    name: String,
    port: i64,
    protocol: String,
    cidr: Option<String>,
    description: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct FirewallModel {
    name: String,
    id: Tf<String>,
    rule: Vec<Rule>,
}

/// `blocks_firewall`: a name and its rules.
struct Firewall;

impl Resource for Firewall {
    fn type_name(&self) -> &'static str {
        "blocks_firewall"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A firewall and its rules.")
            .attr(
                Attr::string("name")
                    .required()
                    .requires_replace()
                    .description("Name of the firewall."),
            )
            .attr(
                Attr::string("id")
                    .computed()
                    .use_state_for_unknown()
                    .description("Identifier, fixed at creation."),
            )
            .block(Block::set(
                "rule",
                ResourceSchema::new()
                    .description("One rule.")
                    .attr(Attr::string("name").required().description("Rule name."))
                    .attr(
                        Attr::number("port")
                            .required()
                            .description("Port it opens."),
                    )
                    .attr(
                        Attr::string("protocol")
                            .default("tcp")
                            .description("`tcp` (default) or `udp`."),
                    )
                    .attr(Attr::string("cidr").optional().description("Source range."))
                    .attr(
                        Attr::string("description")
                            .optional()
                            .description("What it is for."),
                    ),
            ))
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let mut model: FirewallModel = self.schema().decode(planned)?;
        // A real provider creates the firewall here and takes its ID from the answer.
        model.id = Tf::Known(format!("fw-{}", model.name));
        self.schema().encode(&model)
    }

    fn update(
        &self,
        _ctx: &Context,
        prior: &Value,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let prior: FirewallModel = self.schema().decode(prior)?;
        let mut model: FirewallModel = self.schema().decode(planned)?;
        model.id = prior.id;
        self.schema().encode(&model)
    }
}

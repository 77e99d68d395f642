//! The list resource family: ListResource a page at a time and ValidateListResourceConfig
//! (WIT 0.3.0).

use super::*;
use crate::bindings::exports::tfwasm::provider0_3_0::list_resource::{
    ListPage, ListRequest, Listed as WitListed,
};

/// The list schemas of the resource types that offer a listing.
pub fn list_resource_schemas(c: &Catalog) -> Vec<wit::NamedSchema> {
    (c.resources.iter())
        .filter_map(|r| {
            let schema = r.item.list_schema()?;
            Some(wit::NamedSchema {
                type_name: r.item.type_name().to_owned(),
                schema: to_wit_schema(&schema.to_wire()),
            })
        })
        .collect()
}

/// A resource type that offers a listing.
type ListedType<'c> = (&'c Entry<Box<dyn Resource>>, crate::ResourceSchema, Type);

/// The resource `type_name` with its list schema and that schema's value type.
fn find_listed<'c>(c: &'c Catalog, type_name: &str) -> Result<ListedType<'c>, Diagnostic> {
    let entry = find_resource(c, type_name)?;
    let schema = entry.item.list_schema().ok_or_else(|| {
        Diagnostic::error(
            "Unknown list resource type",
            format!("This provider lists no resources of type {type_name:?}."),
        )
    })?;
    let ty = schema.value_type();
    Ok((entry, schema, ty))
}

/// `validate-list-resource-config`: the config decodes against the list schema, and its
/// checks (required attributes, validators) pass where the values are known.
pub fn validate_list_resource_config(
    c: &Catalog,
    type_name: String,
    config: Vec<u8>,
) -> Vec<wit::Diagnostic> {
    run_diags(|| {
        let (_, schema, ty) = find_listed(c, &type_name)?;
        let config = decode(&config, &ty, "list configuration")?;
        Ok(schema.check_config(&config))
    })
}

/// `list-resource`: one page of [`Resource::list`], each object's identity derived from its
/// state, its state passed on only when asked for.
pub fn list_resource(c: &Catalog, ctx: wit::ProviderContext, req: ListRequest) -> ListPage {
    let result = (|| {
        let (entry, _, config_ty) = find_listed(c, &req.type_name)?;
        let config = decode(&req.config, &config_ty, "list configuration")?;
        let ctx = context(c, ctx)?;
        let page = entry.item.list(
            &ctx,
            &crate::list::ListRequest {
                config,
                cursor: req.cursor,
                limit: req.limit,
            },
        )?;
        let objects = (page.objects.into_iter())
            .map(|listed| {
                let identity = known_identity(entry, &listed.state)?.ok_or_else(|| {
                    Diagnostic::error(
                        "Listed object without a known identity",
                        format!(
                            "{} listed {:?}, whose state gives no wholly known identity.",
                            req.type_name, listed.display_name
                        ),
                    )
                })?;
                let resource_object = match req.include_resource_object {
                    true => Some(encode(&listed.state, entry.ty(), "listed state")?),
                    false => None,
                };
                Ok(WitListed {
                    identity,
                    display_name: listed.display_name,
                    resource_object,
                    diagnostics: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>, Diagnostic>>()?;
        Ok(ListPage {
            objects,
            next: page.next,
            diagnostics: Vec::new(),
        })
    })();
    result.unwrap_or_else(|d: Diagnostic| ListPage {
        objects: Vec::new(),
        next: None,
        diagnostics: vec![to_wit_diagnostic(&d)],
    })
}

/// The `list-resource` interface's exports (WIT 0.3.0), beside the family's glue: an RPC
/// added to the family is exported and glued in this one file. Expanded by
/// [`export_provider!`](crate::export_provider).
#[doc(hidden)]
#[macro_export]
macro_rules! __tfwasm_export_list_resource {
    ($export:ident, $provider:ident) => {
        impl $crate::bindings::exports::tfwasm::provider0_3_0::list_resource::Guest for $export {
            fn list_resource_schemas() -> ::std::vec::Vec<$crate::glue::wit::NamedSchema> {
                $crate::glue::list_resource_schemas($provider())
            }
            fn validate_list_resource_config(
                type_name: ::std::string::String,
                config: ::std::vec::Vec<u8>,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::validate_list_resource_config($provider(), type_name, config)
            }
            fn list_resource(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::bindings::exports::tfwasm::provider0_3_0::list_resource::ListRequest,
            ) -> $crate::bindings::exports::tfwasm::provider0_3_0::list_resource::ListPage {
                $crate::glue::list_resource($provider(), ctx, req)
            }
        }
    };
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::Diagnostics;
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self};

    impl ListServer for NativeProvider {
        async fn validate_list_resource_config(
            &self,
            req: ValidateListResourceConfigRequest,
        ) -> Diagnostics {
            diagnostics(glue::validate_list_resource_config(
                self.p(),
                req.type_name,
                req.config.msgpack,
            ))
        }

        async fn list_resource(&self, req: ListResourceRequest) -> ListResourcePage {
            use crate::bindings::exports::tfwasm::provider0_3_0::list_resource::ListRequest;
            let page = glue::list_resource(
                self.p(),
                self.ctx(),
                ListRequest {
                    type_name: req.type_name,
                    config: req.config.msgpack,
                    include_resource_object: req.include_resource_object,
                    limit: req.limit,
                    cursor: req.cursor,
                },
            );
            ListResourcePage {
                events: (page.objects.into_iter())
                    .map(|o| ListResourceEvent {
                        identity: dv(o.identity),
                        display_name: o.display_name,
                        resource_object: o.resource_object.map(dv),
                        diagnostics: diagnostics(o.diagnostics),
                    })
                    .collect(),
                next: page.next,
                diagnostics: diagnostics(page.diagnostics),
            }
        }
    }
}

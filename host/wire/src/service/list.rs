//! The list resource family: ValidateListResourceConfig, and ListResource's stream, which is
//! served page by page: the provider answers one page per call with a cursor to the next
//! ([`ListResourceRequest::cursor`]), and the next page is asked for only once the client
//! has taken the events before it, so a listing is never held whole and a client that stops
//! reading (Terraform stops at its `limit`) stops the listing.

use std::collections::VecDeque;
use std::sync::Arc;

use futures::stream;
use tfwasm_model::rpc::{ListResourcePage, ListResourceRequest, ValidateListResourceConfigRequest};
use tfwasm_model::{Diagnostic, Provider};

use super::BoxStream;
use crate::convert;
use crate::proto::tfplugin6 as pb;

/// The most pages one listing asks for: a provider that always answers with a next cursor
/// would otherwise be called forever.
pub(crate) const MAX_PAGES: usize = 100_000;
/// The most pages in a row without an object: Terraform's limit counts objects, so a
/// provider answering empty pages with new cursors would be asked for all [`MAX_PAGES`]
/// while Terraform waits for its first result. APIs do send an empty page with a token now
/// and then; not a hundred in a row.
pub(crate) const MAX_EMPTY_PAGES: usize = 100;

pub(super) async fn validate_list_resource_config<P: Provider>(
    p: &P,
    req: pb::validate_list_resource_config::Request,
) -> pb::validate_list_resource_config::Response {
    let diagnostics = p
        .validate_list_resource_config(ValidateListResourceConfigRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
        })
        .await;
    pb::validate_list_resource_config::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

/// Where a listing is.
struct Listing<P> {
    provider: Arc<P>,
    request: ListResourceRequest,
    /// Events of the current page not yet taken.
    ready: VecDeque<pb::list_resource::Event>,
    /// Objects sent so far, against the request's limit.
    sent: i64,
    pages: usize,
    /// Pages in a row that held no object.
    empty: usize,
    /// Digests of the cursors asked with: a cursor seen before is a cycle (A, B, A, …).
    seen: std::collections::HashSet<u64>,
    /// No page is to be asked for any more.
    last: bool,
}

pub(super) fn list_resource<P: Provider>(
    provider: Arc<P>,
    req: pb::list_resource::Request,
) -> BoxStream<pb::list_resource::Event> {
    let listing = Listing {
        provider,
        request: ListResourceRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
            include_resource_object: req.include_resource_object,
            limit: req.limit,
            cursor: None,
        },
        ready: VecDeque::new(),
        sent: 0,
        pages: 0,
        empty: 0,
        seen: std::collections::HashSet::new(),
        last: false,
    };
    Box::pin(stream::unfold(listing, |mut listing| async move {
        loop {
            if let Some(event) = listing.ready.pop_front() {
                return Some((Ok(event), listing));
            }
            if listing.last {
                return None;
            }
            let page = (listing.provider)
                .list_resource(listing.request.clone())
                .await;
            listing.take(page);
        }
    }))
}

impl<P> Listing<P> {
    /// Queues `page`'s events, within the limit, and decides whether another page follows.
    fn take(&mut self, page: ListResourcePage) {
        self.pages += 1;
        let limit = if self.request.limit > 0 {
            self.request.limit
        } else {
            i64::MAX
        };
        let before = self.sent;
        let mut failed = tfwasm_model::has_error(&page.diagnostics);
        if !page.diagnostics.is_empty() {
            self.ready.push_back(pb::list_resource::Event {
                diagnostic: convert::diagnostics(page.diagnostics),
                ..Default::default()
            });
        }
        for event in page.events {
            if self.sent >= limit || failed {
                break;
            }
            failed |= tfwasm_model::has_error(&event.diagnostics);
            let identity = (!event.identity.is_null()).then_some(event.identity);
            if identity.is_some() {
                self.sent += 1;
            }
            self.ready.push_back(pb::list_resource::Event {
                identity: convert::to_identity(identity),
                display_name: convert::one_line(event.display_name),
                resource_object: event.resource_object.and_then(convert::to_dynamic_value),
                diagnostic: convert::diagnostics(event.diagnostics),
            });
        }
        self.empty = if self.sent > before {
            0
        } else {
            self.empty + 1
        };
        let repeated = page.next.as_deref().is_some_and(|next| {
            use std::hash::BuildHasher as _;
            let digest =
                std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().hash_one(next);
            !self.seen.insert(digest)
        });
        let stop = match &page.next {
            _ if failed || self.sent >= limit => None,
            None => None,
            Some(_) if repeated => Some(
                "The provider's listing went round in a circle: it answered a page cursor it had answered before.".to_owned(),
            ),
            Some(_) if self.pages >= MAX_PAGES => Some(format!(
                "The provider's listing went on past {MAX_PAGES} pages; tfwasm stopped asking."
            )),
            Some(_) if self.empty >= MAX_EMPTY_PAGES => Some(format!(
                "The provider answered {MAX_EMPTY_PAGES} pages in a row without an object; tfwasm stopped asking."
            )),
            Some(_) => None,
        };
        if let Some(detail) = &stop {
            self.ready.push_back(stopped(detail));
        }
        self.last = failed || page.next.is_none() || stop.is_some() || self.sent >= limit;
        self.request.cursor = page.next;
    }
}

/// An event of one error diagnostic that ends a listing.
fn stopped(detail: &str) -> pb::list_resource::Event {
    pb::list_resource::Event {
        diagnostic: convert::diagnostics(vec![Diagnostic::error("Listing stopped", detail)]),
        ..Default::default()
    }
}

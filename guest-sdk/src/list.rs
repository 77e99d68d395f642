//! List resources (Terraform >= 1.14's `terraform query`): the existing objects of a resource
//! type, found by a `list` block.
//!
//! A resource offers a listing by giving the schema of the `list` block's `config`
//! ([`Resource::list_schema`](crate::Resource::list_schema)) and answering one page at a time
//! ([`Resource::list`](crate::Resource::list)) with each object's state. The SDK derives each
//! object's identity from its state (the resource must declare an
//! [`identity`](crate::Resource::identity)) and passes the state on only when Terraform asked
//! for it (`include_resource = true`).
//!
//! A page says where the next one starts ([`ListPage::next`], such as an API's page number
//! or next link); tfwasm asks for it only while Terraform reads on, so a provider keeps
//! nothing between pages and never holds a whole listing:
//!
//! ```no_run
//! use tfwasm_sdk::list::{ListPage, ListRequest};
//! use tfwasm_sdk::prelude::*;
//!
//! fn list(req: &ListRequest, fetch: impl Fn(u64) -> Vec<Value>) -> Result<ListPage, Diagnostic> {
//!     let page = req.cursor_number().unwrap_or(1);
//!     let objects = fetch(page);
//!     let last = objects.is_empty();
//!     Ok(ListPage {
//!         objects: objects.into_iter().map(|state| (state, "an item").into()).collect(),
//!         next: (!last).then(|| (page + 1).to_string().into_bytes()),
//!     })
//! }
//! ```

use tfwasm_model::Value;

/// One page of a listing, as asked.
#[derive(Debug, Clone)]
pub struct ListRequest {
    /// The `list` block's `config`, of [`Resource::list_schema`](crate::Resource::list_schema)
    /// (wholly known).
    pub config: Value,
    /// Where this page starts: `None` for the first page, else the [`ListPage::next`] of the
    /// page before.
    pub cursor: Option<Vec<u8>>,
    /// The most objects Terraform takes from the whole listing (`limit` in the `list` block,
    /// 100 unless set). A page may hold fewer or more; tfwasm stops asking at the limit.
    pub limit: i64,
}

impl ListRequest {
    /// The cursor read as a decimal number (a page number a provider wrote with
    /// `n.to_string()`), if it is one.
    pub fn cursor_number(&self) -> Option<u64> {
        std::str::from_utf8(self.cursor.as_deref()?)
            .ok()?
            .parse()
            .ok()
    }
}

/// One existing object.
#[derive(Debug, Clone)]
pub struct Listed {
    /// Its state, as `read` would return it: the SDK derives its identity from it.
    pub state: Value,
    /// How Terraform shows it.
    pub display_name: String,
}

impl<S: Into<String>> From<(Value, S)> for Listed {
    fn from((state, display_name): (Value, S)) -> Listed {
        Listed {
            state,
            display_name: display_name.into(),
        }
    }
}

/// One page of a listing.
#[derive(Debug, Clone, Default)]
pub struct ListPage {
    /// The objects of this page, in order.
    pub objects: Vec<Listed>,
    /// Where the next page starts; `None` after the last page.
    pub next: Option<Vec<u8>>,
}

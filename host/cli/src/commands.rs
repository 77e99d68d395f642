//! One module per subcommand.

pub mod check;
pub mod docs;
pub mod inspect;
#[cfg(feature = "compiler")]
pub mod package;
pub mod serve;

//! One module per subcommand.

pub mod check;
pub mod docs;
pub mod inspect;
pub mod new;
#[cfg(feature = "compiler")]
pub mod package;
pub mod serve;

//! One module per subcommand.

pub mod check;
pub mod inspect;
pub mod package;
pub mod serve;

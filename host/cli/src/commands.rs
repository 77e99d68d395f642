//! One module per subcommand.

pub mod inspect;
pub mod package;
pub mod serve;

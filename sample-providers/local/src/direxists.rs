//! Function `direxists(path)`, as in hashicorp/local 2.5: whether a directory exists at `path`.
//! A path that exists but is not a directory is an error, as there; a path outside the
//! directories the operator granted is an error here (the sandbox cannot look), never `false`.

use std::io::ErrorKind;

use tfwasm_sdk::prelude::*;

use crate::files::check_granted;

/// `provider::local::direxists(path)`.
pub struct DirExists;

impl Function for DirExists {
    fn name(&self) -> &'static str {
        "direxists"
    }

    fn signature(&self) -> Signature {
        Signature::returns(Type::Bool)
            .summary("Checks whether a directory exists")
            .markdown_description(
                "Given a path, returns `true` if a directory exists there and `false` if nothing does. \
                 A path to something else than a directory is an error. The path must lie inside a \
                 directory granted to the provider.",
            )
            .parameter(
                Param::new("path", Type::String)
                    .description("Absolute path of the directory to check."),
            )
    }

    fn call(&self, args: &Arguments) -> Result<Value, FunctionError> {
        let path: String = args.get(0)?;
        check_granted("path", &path).map_err(|d| FunctionError::argument(0, d.detail))?;
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => Ok(Value::Bool(true)),
            Ok(_) => Err(FunctionError::argument(
                0,
                format!("{path:?} exists but is not a directory"),
            )),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(Value::Bool(false)),
            Err(e) => Err(FunctionError::argument(
                0,
                format!("cannot check {path:?}: {e}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(path: &str) -> Result<Value, FunctionError> {
        let args = Arguments::new(vec![Value::from(path)], &DirExists.signature());
        DirExists.call(&args)
    }

    #[test]
    fn directories_files_and_nothing() {
        let dir = std::env::temp_dir().join(format!("direxists-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("file");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(call(dir.to_str().unwrap()), Ok(Value::Bool(true)));
        assert_eq!(
            call(dir.join("missing").to_str().unwrap()),
            Ok(Value::Bool(false))
        );
        let error = call(file.to_str().unwrap()).unwrap_err();
        assert_eq!(error.argument, Some(0));
        assert!(error.text.contains("not a directory"), "{}", error.text);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

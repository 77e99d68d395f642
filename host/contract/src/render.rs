//! Values as they appear in violation messages: short, HCL-like, never secret.

use tfwasm_model::Value;

/// Longest rendering before it is cut with `…`.
const MAX_RENDERED: usize = 120;

/// Renders a value for a message, e.g. `"a"`, `5`, `["x", (known after apply)]`.
pub fn render(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    if out.chars().count() > MAX_RENDERED {
        let cut: String = out.chars().take(MAX_RENDERED).collect();
        return format!("{cut}…");
    }
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Unknown(_) => out.push_str("(known after apply)"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&serde_json::Value::String(s.clone()).to_string()),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Map(entries) | Value::Object(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push_str(" = ");
                write(v, out);
            }
            out.push('}');
        }
        Value::Dynamic(_, inner) => write(inner, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_hcl_and_truncates() {
        let v = Value::object([
            ("a", Value::from("x")),
            ("b", Value::List(vec![Value::unknown(), Value::Null])),
        ]);
        assert_eq!(render(&v), r#"{a = "x", b = [(known after apply), null]}"#);
        let long = Value::String("y".repeat(500));
        assert!(render(&long).ends_with('…'));
    }
}

//! Values as they appear in violation messages: short, HCL-like, never secret.

use tfwasm_model::Value;

/// Longest rendering before it is cut with `…`.
const MAX_RENDERED: usize = 120;

/// Renders a value for a message, e.g. `"a"`, `5`, `["x", (known after apply)]`. The work
/// is bounded by the rendering, not the value: writing stops once past the cut, strings are
/// escaped only as far as shown, and a number too long to show whole is shown by magnitude.
pub fn render(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    if out.chars().count() > MAX_RENDERED {
        let cut: String = out.chars().take(MAX_RENDERED).collect();
        return format!("{cut}…");
    }
    out
}

/// True once `out` holds more than is shown.
fn full(out: &str) -> bool {
    out.len() > MAX_RENDERED * 4
}

fn write(value: &Value, out: &mut String) {
    if full(out) {
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Unknown(_) => out.push_str("(known after apply)"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => number(n, out),
        Value::String(s) => {
            // Escaped as JSON, as far as shown.
            let shown = &s[..s.floor_char_boundary(MAX_RENDERED * 4)];
            let escaped = serde_json::Value::String(shown.to_owned()).to_string();
            if shown.len() < s.len() {
                out.push_str(&escaped[..escaped.len() - 1]);
            } else {
                out.push_str(&escaped);
            }
        }
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if full(out) {
                    break;
                }
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
                if full(out) {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&k[..k.floor_char_boundary(MAX_RENDERED * 4)]);
                out.push_str(" = ");
                write(v, out);
            }
            out.push('}');
        }
        Value::Dynamic(_, inner) => write(inner, out),
    }
}

/// A number as go-cty writes it, exactly, unless its plain decimal text would run past what
/// is shown (near the exponent bound it is 1,000 digits): then its magnitude.
fn number(n: &tfwasm_model::Number, out: &mut String) {
    let f = n.to_f64();
    // Plain text of at most about 120 digits before or after the point is shown exactly.
    let short = f == 0.0 || (f.is_finite() && (1e-120..1e120).contains(&f.abs()));
    if short {
        out.push_str(&n.to_string());
    } else if f.is_finite() {
        out.push_str(&format!("{f:e}"));
    } else {
        out.push_str(if f > 0.0 {
            "(a number above 1e308)"
        } else {
            "(a number below -1e308)"
        });
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

    /// A hostile value costs what is shown, not what it holds: a 16 MiB string of control
    /// bytes, a million-element list, a number of 1,000 digits.
    #[test]
    fn rendering_is_bounded_by_what_is_shown() {
        let huge = Value::String("\u{1}".repeat(16 << 20));
        let shown = render(&huge);
        assert!(
            shown.len() < 1024 && shown.ends_with('…'),
            "{}",
            shown.len()
        );
        let many = Value::List(vec![Value::from("item"); 1_000_000]);
        assert!(render(&many).len() < 1024);
        let big: tfwasm_model::Number = "-1e990".parse().unwrap();
        assert_eq!(render(&Value::Number(big)), "(a number below -1e308)");
        let tiny: tfwasm_model::Number = "1.5e-300".parse().unwrap();
        assert_eq!(render(&Value::Number(tiny)), "1.5e-300");
        let exact: tfwasm_model::Number = "123456789012345678901234567891".parse().unwrap();
        assert_eq!(
            render(&Value::Number(exact)),
            "123456789012345678901234567891"
        );
        assert_eq!(render(&Value::from(42)), "42");
    }
}

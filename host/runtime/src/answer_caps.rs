//! Caps on a guest's answer, applied before the host works on it: diagnostics (count and
//! bytes, per [`crate::HostWork`]), the paths they and requires-replace carry, and the objects
//! an import returns. Terraform renders and walks each of these, so what a guest sends
//! must not decide how long it works.

use crate::bindings::wit;

/// Most steps of a path a guest hands over: no value nests deeper
/// ([`tfwasm_model::codec::MAX_DEPTH`]), so a longer path points at nothing; and Terraform's
/// work on a path grows with the square of its length.
pub(crate) const MAX_PATH_STEPS: usize = tfwasm_model::codec::MAX_DEPTH;
/// Most requires-replace paths one plan may carry (one per attribute is the usual most).
pub(crate) const MAX_REQUIRES_REPLACE: usize = 4096;
/// Most bytes a plan's requires-replace paths may hold together (each step charged at
/// least 8): Terraform quotes a path it cannot resolve in an error of its own, escaping
/// each control byte into four, so this bounds what a guest's paths make it print.
pub(crate) const MAX_REQUIRES_REPLACE_BYTES: usize = 256 << 10;

/// What a path costs against a byte budget: every step at least 8 bytes (an empty name
/// is still a step Terraform walks), plus its name.
fn path_bytes(path: &[wit::PathStep]) -> usize {
    path.iter()
        .map(|step| match step {
            wit::PathStep::AttributeName(s) | wit::PathStep::ElementKeyString(s) => 8 + s.len(),
            wit::PathStep::ElementKeyInt(_) => 8,
        })
        .sum()
}

/// Bytes of text a diagnostic carries.
pub(crate) fn diagnostic_bytes(d: &wit::Diagnostic) -> usize {
    d.summary.len() + d.detail.len() + path_bytes(&d.attribute)
}

/// Most objects one page of a listing may hold (the host asks for the next page).
pub(crate) const MAX_LISTED: usize = 4096;
/// Largest next-page cursor of a listing (a page number, a link, a token).
pub(crate) const MAX_LIST_CURSOR_BYTES: usize = 64 << 10;
/// Longest display name of a listed object; longer ones are cut.
pub(crate) const MAX_DISPLAY_NAME_BYTES: usize = 1024;

/// Longest lock ID a state store may answer (Terraform shows it, and sends it back).
pub(crate) const MAX_LOCK_ID_BYTES: usize = 1024;
/// Most states one state store may list (workspaces).
pub(crate) const MAX_STATES: usize = 10_000;
/// Longest state ID (a workspace name) a state store may list.
pub(crate) const MAX_STATE_ID_BYTES: usize = 1024;

/// Most objects one import may return (one ID rarely imports more than a handful).
pub(crate) const MAX_IMPORTED: usize = 4096;

/// An error when an import returned more than [`MAX_IMPORTED`] objects.
pub(crate) fn check_imported(count: usize) -> Option<wit::Diagnostic> {
    (count > MAX_IMPORTED).then(|| wit::Diagnostic {
        severity: wit::Severity::Error,
        summary: "Provider imported too many objects".into(),
        detail: format!(
            "The provider returned {count} objects for one import; tfwasm passes on at most {MAX_IMPORTED}. This is a provider bug."
        ),
        attribute: Vec::new(),
    })
}

/// A plan's requires-replace paths within [`MAX_PATH_STEPS`], [`MAX_REQUIRES_REPLACE`] and
/// [`MAX_REQUIRES_REPLACE_BYTES`]:
/// a longer path resolves to nothing and is dropped; too many paths are an error, since
/// dropping some could turn a replacement into an update.
pub(crate) fn check_requires_replace(
    paths: &mut Vec<Vec<wit::PathStep>>,
) -> Option<wit::Diagnostic> {
    paths.retain(|p| p.len() <= MAX_PATH_STEPS);
    let count = paths.len();
    let bytes: usize = paths.iter().map(|p| path_bytes(p)).sum();
    let detail = if count > MAX_REQUIRES_REPLACE {
        format!(
            "The provider said {count} attribute paths require replacement; tfwasm passes on at most {MAX_REQUIRES_REPLACE}. This is a provider bug."
        )
    } else if bytes > MAX_REQUIRES_REPLACE_BYTES {
        format!(
            "The provider's {count} paths that require replacement hold {bytes} bytes; tfwasm passes on at most {MAX_REQUIRES_REPLACE_BYTES}. This is a provider bug."
        )
    } else {
        return None;
    };
    paths.clear();
    Some(wit::Diagnostic {
        severity: wit::Severity::Error,
        summary: "Provider planned too many replacement paths".into(),
        detail,
        attribute: Vec::new(),
    })
}

/// Cuts `text` to at most `max` bytes at a character boundary, marking the cut.
pub(crate) fn truncate(text: &mut String, max: usize) {
    const MARK: &str = " [truncated by tfwasm]";
    if text.len() <= max {
        return;
    }
    text.truncate(text.floor_char_boundary(max.saturating_sub(MARK.len())));
    text.push_str(MARK);
}

/// Keeps a response's diagnostics within `most` diagnostics and `bytes` of text: those
/// beyond are replaced by one saying how many were dropped, an error if any dropped one was
/// (a capped failure still fails); a diagnostic too long for what is left has its text cut.
pub(crate) fn cap_diagnostics(list: &mut Vec<wit::Diagnostic>, most: usize, bytes: usize) {
    /// Below this much room a diagnostic is dropped rather than cut to nothing.
    const SMALLEST_CUT: usize = 256;
    for d in list.iter_mut() {
        if d.attribute.len() > MAX_PATH_STEPS {
            let steps = d.attribute.len();
            d.attribute = Vec::new();
            d.detail.push_str(&format!(
                " [tfwasm dropped its attribute path of {steps} steps]"
            ));
        }
    }
    let total: usize = list.iter().map(diagnostic_bytes).sum();
    if list.len() <= most && total <= bytes {
        return;
    }
    let mut used = 0usize;
    let mut dropped = 0usize;
    let mut dropped_error = false;
    let mut kept = Vec::with_capacity(list.len().min(most));
    for mut d in list.drain(..) {
        let size = diagnostic_bytes(&d);
        let room = bytes.saturating_sub(used);
        let path = path_bytes(&d.attribute);
        if kept.len() < most && size > room && room >= SMALLEST_CUT && path <= room / 2 {
            let text_room = room - path;
            let summary_max = (text_room / 4).max(d.summary.len().min(text_room / 2));
            truncate(&mut d.summary, summary_max);
            truncate(&mut d.detail, text_room - d.summary.len());
        }
        let size = diagnostic_bytes(&d);
        if kept.len() < most && size <= room {
            used += size;
            kept.push(d);
        } else {
            dropped += 1;
            dropped_error |= matches!(d.severity, wit::Severity::Error);
        }
    }
    if dropped > 0 {
        kept.push(wit::Diagnostic {
            severity: if dropped_error {
                wit::Severity::Error
            } else {
                wit::Severity::Warning
            },
            summary: "Provider diagnostics capped".into(),
            detail: format!(
                "The provider returned more diagnostics than tfwasm passes on ({most} per call, {} of text); {dropped} more were dropped{}. Raise diagnostics_per_call or diagnostic_bytes_per_call under [limits] if the provider is trusted to send this many.",
                crate::limits::ByteSize(bytes),
                if dropped_error { ", among them errors" } else { "" },
            ),
            attribute: Vec::new(),
        });
    }
    *list = kept;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(severity: wit::Severity, detail: String) -> wit::Diagnostic {
        wit::Diagnostic {
            severity,
            summary: "s".into(),
            detail,
            attribute: vec![wit::PathStep::AttributeName("a".into())],
        }
    }

    #[test]
    fn diagnostics_past_the_count_become_one_that_keeps_the_failure() {
        let mut list: Vec<_> = (0..300_000)
            .map(|_| diagnostic(wit::Severity::Warning, "w".into()))
            .collect();
        list.push(diagnostic(wit::Severity::Error, "the real failure".into()));
        cap_diagnostics(&mut list, 1000, 1 << 20);
        assert_eq!(list.len(), 1001);
        let notice = list.last().unwrap();
        assert!(matches!(notice.severity, wit::Severity::Error));
        assert!(
            notice
                .detail
                .contains("299001 more were dropped, among them errors"),
            "{}",
            notice.detail
        );

        let mut warnings: Vec<_> = (0..5)
            .map(|_| diagnostic(wit::Severity::Warning, "w".into()))
            .collect();
        cap_diagnostics(&mut warnings, 2, 1 << 20);
        assert!(matches!(warnings[2].severity, wit::Severity::Warning));
    }

    #[test]
    fn a_huge_diagnostic_is_cut_to_the_byte_budget() {
        let mut list = vec![
            diagnostic(wit::Severity::Error, "é".repeat(50 << 20)),
            diagnostic(wit::Severity::Warning, "after".into()),
        ];
        cap_diagnostics(&mut list, 1000, 1 << 20);
        let total: usize = list[..list.len() - 1].iter().map(diagnostic_bytes).sum();
        assert!(total <= 1 << 20, "{total}");
        assert!(matches!(list[0].severity, wit::Severity::Error));
        assert!(list[0].detail.ends_with("[truncated by tfwasm]"));
        // Nothing is left for the second: it is dropped and said so.
        assert!(list.last().unwrap().summary.contains("capped"));
        // Within the limits nothing changes.
        let mut small = vec![diagnostic(wit::Severity::Error, "x".into())];
        cap_diagnostics(&mut small, 1, 100);
        assert_eq!(small[0].detail, "x");
    }

    #[test]
    fn long_and_empty_step_paths_are_charged_and_cut() {
        let steps = |n| vec![wit::PathStep::AttributeName(String::new()); n];
        // Empty names still cost: 3 million of them do not slip through a 1 MiB budget.
        let mut list = vec![wit::Diagnostic {
            attribute: steps(MAX_PATH_STEPS + 1),
            ..diagnostic(wit::Severity::Error, "deep".into())
        }];
        cap_diagnostics(&mut list, 1000, 1 << 20);
        assert!(list[0].attribute.is_empty());
        assert!(
            list[0]
                .detail
                .contains("dropped its attribute path of 129 steps")
        );
        let mut many: Vec<_> = (0..100)
            .map(|_| wit::Diagnostic {
                attribute: steps(MAX_PATH_STEPS),
                ..diagnostic(wit::Severity::Warning, String::new())
            })
            .collect();
        cap_diagnostics(&mut many, 1000, 10 * 8 * MAX_PATH_STEPS);
        assert!(many.len() <= 11, "{}", many.len());

        let mut paths = vec![steps(2), steps(MAX_PATH_STEPS + 1), steps(MAX_PATH_STEPS)];
        assert!(check_requires_replace(&mut paths).is_none());
        assert_eq!(paths.len(), 2, "the path longer than any value is dropped");
        assert!(
            check_imported(MAX_IMPORTED).is_none() && check_imported(MAX_IMPORTED + 1).is_some()
        );
        let mut paths = vec![steps(1); MAX_REQUIRES_REPLACE + 1];
        let error = check_requires_replace(&mut paths).expect("too many");
        assert!(matches!(error.severity, wit::Severity::Error));
        assert!(paths.is_empty());
    }

    /// 4096 paths each naming a 30,000-byte map key of control bytes made Terraform print
    /// 617 MB (it quotes every path it cannot resolve): the paths' bytes are capped too.
    #[test]
    fn requires_replace_paths_are_held_to_a_byte_budget() {
        let path = |key: String| {
            vec![
                wit::PathStep::AttributeName("tags".into()),
                wit::PathStep::ElementKeyString(key),
            ]
        };
        let mut paths: Vec<_> = (0..4096)
            .map(|i| path(format!("{i}{}", "\u{1}".repeat(30_000))))
            .collect();
        let error = check_requires_replace(&mut paths).expect("too many bytes");
        assert!(error.detail.contains("hold"), "{}", error.detail);
        assert!(paths.is_empty());
        let mut ordinary: Vec<_> = (0..200).map(|i| path(format!("key{i}"))).collect();
        assert!(check_requires_replace(&mut ordinary).is_none());
        assert_eq!(ordinary.len(), 200);
    }
}

//! The platforms a provider package can be made for, as Terraform names them (`linux_arm64`),
//! and the machine code each needs: a target triple and its architecture's baseline CPU, so
//! code compiled on one machine runs on every machine of the platform.

/// A platform tfwasm makes packages for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    name: &'static str,
    triple: &'static str,
    baseline: &'static [&'static str],
    elf_machine: u16,
}

/// x86-64-v2 (SSE4.2, POPCNT): every x86-64 CPU since 2009, and what RHEL 9 requires.
const X86_64_V2: &[&str] = &[
    "has_sse3",
    "has_ssse3",
    "has_cmpxchg16b",
    "has_sse41",
    "has_sse42",
    "has_popcnt",
];

/// Every platform a package can be made for, from any of them (the runner of another one is
/// cross-compiled: `scripts/build-runner-arm64.sh`). darwin needs a runner built on macOS.
pub const PLATFORMS: &[Platform] = &[
    Platform {
        name: "linux_amd64",
        triple: "x86_64-unknown-linux-gnu",
        baseline: X86_64_V2,
        elf_machine: 62,
    },
    Platform {
        name: "linux_arm64",
        // Plain ARMv8.0-A: no LSE atomics or pointer authentication assumed.
        triple: "aarch64-unknown-linux-gnu",
        baseline: &[],
        elf_machine: 183,
    },
];

impl Platform {
    /// The platform named `name` (`linux_arm64`), if packages can be made for it.
    pub fn named(name: &str) -> Option<Platform> {
        PLATFORMS.iter().copied().find(|p| p.name == name)
    }

    /// This machine's platform, if packages can be made for it.
    pub fn host() -> Option<Platform> {
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            other => other,
        };
        Platform::named(&format!("{}_{arch}", std::env::consts::OS))
    }

    /// The names of all platforms, for messages.
    pub fn names() -> String {
        PLATFORMS
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Terraform's name for it (`linux_amd64`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The target triple, as wasmtime spells it.
    pub fn triple(&self) -> &'static str {
        self.triple
    }

    /// The Cranelift flags of the architecture's baseline CPU.
    pub fn baseline(&self) -> &'static [&'static str] {
        self.baseline
    }

    /// `e_machine` of its ELF executables (62 x86-64, 183 AArch64).
    pub fn elf_machine(&self) -> u16 {
        self.elf_machine
    }

    /// The CPU features of the baseline this machine's CPU lacks, as people name them
    /// (`sse4.2`), when this is the machine's own platform: why a package's code cannot run
    /// here. Empty on another platform.
    pub fn missing_here(&self) -> Vec<&'static str> {
        if Platform::host() != Some(*self) {
            return Vec::new();
        }
        (self.baseline.iter())
            .filter_map(|flag| feature(flag).filter(|(_, present)| !present()))
            .map(|(name, _)| name)
            .collect()
    }

    /// The baseline, as people name it (`x86-64-v2`).
    pub fn baseline_name(&self) -> &'static str {
        if self.baseline == X86_64_V2 {
            "x86-64-v2"
        } else {
            "ARMv8.0-A"
        }
    }

    /// The architecture, as people name it in messages (`arm64`).
    pub fn arch(&self) -> &'static str {
        self.name.rsplit('_').next().unwrap_or(self.name)
    }
}

/// A CPU feature's name and how this CPU is asked about it.
type Feature = (&'static str, fn() -> bool);

/// A baseline Cranelift flag's feature name and how this CPU is asked about it.
#[cfg(target_arch = "x86_64")]
fn feature(flag: &str) -> Option<Feature> {
    Some(match flag {
        "has_sse3" => ("sse3", || std::is_x86_feature_detected!("sse3")),
        "has_ssse3" => ("ssse3", || std::is_x86_feature_detected!("ssse3")),
        "has_cmpxchg16b" => ("cmpxchg16b", || std::is_x86_feature_detected!("cmpxchg16b")),
        "has_sse41" => ("sse4.1", || std::is_x86_feature_detected!("sse4.1")),
        "has_sse42" => ("sse4.2", || std::is_x86_feature_detected!("sse4.2")),
        "has_popcnt" => ("popcnt", || std::is_x86_feature_detected!("popcnt")),
        _ => return None,
    })
}

/// No baseline flags are checked on other architectures (arm64's baseline has none).
#[cfg(not(target_arch = "x86_64"))]
fn feature(_flag: &str) -> Option<Feature> {
    None
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms_are_found_by_terraforms_names() {
        let arm = Platform::named("linux_arm64").unwrap();
        assert_eq!(arm.triple(), "aarch64-unknown-linux-gnu");
        assert_eq!(arm.arch(), "arm64");
        assert_eq!(arm.elf_machine(), 183);
        assert!(Platform::named("windows_amd64").is_none());
        assert!(Platform::names().contains("linux_amd64"));
        if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
            assert_eq!(Platform::host().unwrap().name(), "linux_amd64");
        }
    }

    /// Every baseline flag has a name and a question for the CPU (`missing_here` would
    /// otherwise pass over it in silence); the answers themselves are tested under qemu
    /// (`tests/protocol/cpu_features.rs`).
    #[test]
    fn every_baseline_flag_is_asked_about() {
        if cfg!(target_arch = "x86_64") {
            for flag in X86_64_V2 {
                assert!(feature(flag).is_some(), "{flag}");
            }
        }
        let arm = Platform::named("linux_arm64").unwrap();
        assert!(arm.missing_here().is_empty(), "not this machine's platform");
        assert_eq!(arm.baseline_name(), "ARMv8.0-A");
        assert_eq!(
            Platform::named("linux_amd64").unwrap().baseline_name(),
            "x86-64-v2"
        );
    }
}

//! Fuzzing the readers of untrusted bytes: the offload-bundle parser, the `.hipk` archive and
//! reference-record readers, the kernel-metadata decoder, the SPIR-V reader, the PTX cut of the
//! CUDA backend's per-kernel JIT and `hipModuleLoadData`. Each target mutates valid seeds (images hipmlir built, in `fuzz-seeds/`)
//! with a deterministic generator; every input must give a result or an error, never a panic,
//! a hang or a signal. The seeds are what `hipmlir -c x.hip --save-temps` keeps (`x.hipfb`,
//! `x.spv` saved as `x.spirv`), the `.hipk` of `--split-device-code` and PTX of `--emit-ptx`: regenerate them when
//! the image format changes (a seed that no longer decodes fails the test at once).
//!
//! `make test` runs a bounded number of executions per target. A long campaign:
//!
//! ```sh
//! HIPMLIR_LOG=off HIPMLIR_FUZZ_EXECS=10000000 HIPMLIR_FUZZ_THREADS=16 \
//!     cargo test --release -p hipmlir-runtime --test fuzz -- --ignored --nocapture campaign
//! ```
//!
//! (`HIPMLIR_FUZZ_TARGETS=spirv,bundle` picks targets; `HIPMLIR_FUZZ_SEED` changes the
//! generator's start; `HIPMLIR_FUZZ_SEEDS` names the seed folder when the test binary runs
//! elsewhere). A failing input is written to `HIPMLIR_FUZZ_OUT` (default: the system's
//! temporary folder) and named in the failure.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use hipmlir_device_image::kpack::{KpackArchive, KpackRecord};
use hipmlir_device_image::spirv_words;
use hipmlir_device_image::{
    content_hash, split_bundles, Bundle, DeviceImage, ModuleMetadata, HASH_ENTRY_ID,
    METADATA_ENTRY_ID, SPIRV_ENTRY_ID,
};
use hipmlir_rt::api::module::{hipModuleLoadData, hipModuleUnload, image_from_bytes};
use hipmlir_rt::{ptx_split, spirv};

/// A 64-bit generator (SplitMix64): the same inputs for the same seed on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Values that sit on the edges parsers get wrong: lengths, counts, offsets and word counts.
const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    16,
    24,
    0x7f,
    0x80,
    0xff,
    0x100,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    u64::MAX,
];

/// One mutation of `data`, chosen among bit flips, byte and word overwrites with random or
/// interesting values, truncations, deletions, duplications, insertions and splices from
/// `other` (another seed).
fn mutate_once(data: &mut Vec<u8>, other: &[u8], rng: &mut Rng) {
    let len = data.len();
    match rng.below(11) {
        0 if len > 0 => {
            let at = rng.below(len);
            data[at] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let at = rng.below(len);
            data[at] = rng.next() as u8;
        }
        2 | 3 if len >= 4 => {
            // An aligned 32-bit word (SPIR-V words, instruction word counts, JSON digits alike).
            let at = rng.below(len / 4) * 4;
            let v = if rng.below(2) == 0 {
                INTERESTING[rng.below(INTERESTING.len())] as u32
            } else {
                // A word count in the high half, an opcode kept.
                let old = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
                (old & 0xffff) | ((rng.below(0x1_0000) as u32) << 16)
            };
            data[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        4 if len >= 8 => {
            // A 64-bit field (bundle offsets, sizes and counts; archive lengths).
            let at = rng.below(len / 8) * 8;
            let v = INTERESTING[rng.below(INTERESTING.len())];
            data[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        5 if len > 0 => data.truncate(rng.below(len)),
        6 if len > 0 => {
            let at = rng.below(len);
            let n = rng.below(len - at + 1).min(64);
            data.drain(at..at + n);
        }
        7 if len > 0 => {
            let at = rng.below(len);
            let n = rng.below(len - at + 1).min(64);
            let chunk = data[at..at + n].to_vec();
            let to = rng.below(len + 1);
            data.splice(to..to, chunk);
        }
        8 => {
            let at = rng.below(len + 1);
            let n = 1 + rng.below(16);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            data.splice(at..at, bytes);
        }
        9 if !other.is_empty() && len > 0 => {
            let from = rng.below(other.len());
            let n = rng.below(other.len() - from + 1).min(256);
            let at = rng.below(len);
            let end = (at + n).min(len);
            data.splice(at..end, other[from..from + n].iter().copied());
        }
        _ if len > 0 => {
            // An ASCII digit or quote changed: JSON numbers and strings (metadata).
            let at = rng.below(len);
            data[at] = b"0123456789\"-.e{}[]:,"[rng.below(20)];
        }
        _ => data.push(rng.next() as u8),
    }
}

fn mutate(seed: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        mutate_once(&mut data, other, rng);
    }
    data
}

/// A bundle with its content hash recomputed, so that the parts behind the hash (the metadata
/// decoder, the SPIR-V checks) see the mutation. Unchanged if the bundle does not decode.
fn rehash(bytes: &[u8]) -> Vec<u8> {
    let Ok(mut bundle) = Bundle::decode(bytes) else {
        return bytes.to_vec();
    };
    let spirv = bundle.entry(SPIRV_ENTRY_ID).unwrap_or_default().to_vec();
    let meta = bundle.entry(METADATA_ENTRY_ID).unwrap_or_default().to_vec();
    let hash = content_hash(&spirv, &meta).to_vec();
    for e in &mut bundle.entries {
        if e.id == HASH_ENTRY_ID {
            e.data = hash.clone();
        }
    }
    bundle.encode()
}

/// A bundle of `seed`'s SPIR-V with `metadata` as its metadata, hashed.
fn with_metadata(seed: &[u8], metadata: &[u8]) -> Vec<u8> {
    let mut bundle = Bundle::decode(seed).expect("seed bundles decode");
    for e in &mut bundle.entries {
        if e.id == METADATA_ENTRY_ID {
            e.data = metadata.to_vec();
        }
    }
    rehash(&bundle.encode())
}

/// An archive with its header's length and checksum made right for a mutated body, so the
/// MessagePack decoder behind them sees it.
fn reframe_archive(bytes: &[u8]) -> Vec<u8> {
    const HEADER: usize = 32;
    if bytes.len() < HEADER {
        return bytes.to_vec();
    }
    let mut out = bytes.to_vec();
    let body_len = (out.len() - HEADER) as u64;
    let sum = hipmlir_device_image::kpack::fnv1a64(&out[HEADER..]);
    out[16..24].copy_from_slice(&body_len.to_le_bytes());
    out[24..32].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Memory whose readable part ends exactly at a page that cannot be read: what
/// `hipModuleLoadData` reads past the image's own structure faults, unless it is checked.
struct Fenced {
    base: *mut u8,
    len: usize,
    readable: usize,
}

extern "C" {
    fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
    fn mprotect(addr: *mut u8, len: usize, prot: i32) -> i32;
    fn munmap(addr: *mut u8, len: usize) -> i32;
}

const PAGE: usize = 4096;

impl Fenced {
    fn new(max: usize) -> Fenced {
        let readable = max.next_multiple_of(PAGE);
        let len = readable + PAGE;
        // SAFETY: a fresh private anonymous mapping (PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS).
        let base = unsafe { mmap(std::ptr::null_mut(), len, 3, 0x22, -1, 0) };
        assert!(!base.is_null() && base as isize != -1, "mmap");
        // SAFETY: the last page of the mapping just made becomes PROT_NONE.
        assert_eq!(unsafe { mprotect(base.add(readable), PAGE, 0) }, 0);
        Fenced {
            base,
            len,
            readable,
        }
    }

    /// `data` placed so that its last byte is the last readable one.
    fn place(&mut self, data: &[u8]) -> *const u8 {
        let n = data.len().min(self.readable);
        // SAFETY: `n` bytes end at `readable`, inside the writable part of the mapping.
        unsafe {
            let at = self.base.add(self.readable - n);
            std::ptr::copy_nonoverlapping(data.as_ptr(), at, n);
            at
        }
    }
}

impl Drop for Fenced {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`.
        unsafe { munmap(self.base, self.len) };
    }
}

/// The seeds: images hipmlir built.
struct Seeds {
    bundles: Vec<Vec<u8>>,
    spirv: Vec<Vec<u8>>,
    archives: Vec<Vec<u8>>,
    records: Vec<Vec<u8>>,
    metadata: Vec<Vec<u8>>,
    ptx: Vec<Vec<u8>>,
}

fn seeds() -> Seeds {
    let dir = std::env::var_os("HIPMLIR_FUZZ_SEEDS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-seeds"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/fuzz-seeds")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let of = |ext: &str| -> Vec<Vec<u8>> {
        files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .map(|p| std::fs::read(p).expect("seed"))
            .collect()
    };
    let bundles = of("hipfb");
    let metadata = bundles
        .iter()
        .map(|b| {
            let image = DeviceImage::from_bundle_bytes(b).expect("seed bundles are valid");
            image.metadata.to_json().into_bytes()
        })
        .collect();
    let records = vec![
        KpackRecord::new("app-0123456789abcdef".into(), "app.hipk".into()).encode(),
        KpackRecord::new(String::new(), "x".into()).encode(),
    ];
    Seeds {
        bundles,
        spirv: of("spirv"),
        archives: of("hipk"),
        records,
        metadata,
        ptx: of("ptx"),
    }
}

/// One fuzz target: `make` builds an input from the seeds, `exec` runs it; an `Err` from
/// `exec`, or a panic, is a finding.
struct Target {
    name: &'static str,
    make: fn(&Seeds, &mut Rng) -> Vec<u8>,
    exec: fn(&Seeds, &[u8], &mut Rng, &mut Fenced) -> Result<(), String>,
}

fn pick<'a>(list: &'a [Vec<u8>], rng: &mut Rng) -> &'a [u8] {
    &list[rng.below(list.len())]
}

const TARGETS: &[Target] = &[
    Target {
        name: "bundle",
        make: |s, rng| mutate(pick(&s.bundles, rng), pick(&s.spirv, rng), rng),
        exec: |_, input, _, _| {
            let _ = Bundle::decode(input);
            let _ = Bundle::encoded_len(input);
            let _ = split_bundles(input);
            let _ = DeviceImage::from_bundle_bytes(input);
            Ok(())
        },
    },
    Target {
        name: "hipk",
        make: |s, rng| {
            if rng.below(4) == 0 {
                return mutate(pick(&s.records, rng), &[], rng);
            }
            let input = mutate(pick(&s.archives, rng), pick(&s.bundles, rng), rng);
            if rng.below(4) != 0 {
                reframe_archive(&input)
            } else {
                input
            }
        },
        exec: |_, input, _, _| {
            let _ = KpackRecord::decode(input);
            if let Ok(archive) = KpackArchive::decode(input) {
                let _ = archive.select("anything");
                for entry in &archive.entries {
                    for image in &entry.images {
                        let _ = DeviceImage::from_bundle_bytes(&image.bundle);
                    }
                }
            }
            Ok(())
        },
    },
    Target {
        name: "metadata",
        make: |s, rng| {
            let i = rng.below(s.metadata.len());
            mutate(&s.metadata[i], &s.metadata[(i + 1) % s.metadata.len()], rng)
        },
        exec: |s, input, rng, _| {
            let _ = ModuleMetadata::from_json(&String::from_utf8_lossy(input));
            // Behind a recomputed hash: the runtime's checks of the metadata against the SPIR-V.
            if rng.below(4) == 0 {
                let _ = image_from_bytes(&with_metadata(pick(&s.bundles, rng), input));
            }
            Ok(())
        },
    },
    Target {
        name: "spirv",
        make: |s, rng| mutate(pick(&s.spirv, rng), pick(&s.spirv, rng), rng),
        exec: |s, input, rng, _| {
            let _ = spirv::parse_kernels(input);
            let words: Vec<u32> = input
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let _ = spirv_words::module_length(|i| words.get(i).copied());
            // Through a whole image, hash recomputed, as registration checks it.
            if rng.below(4) == 0 {
                let mut bundle = Bundle::decode(pick(&s.bundles, rng)).expect("seed");
                for e in &mut bundle.entries {
                    if e.id == SPIRV_ENTRY_ID {
                        e.data = input.to_vec();
                    }
                }
                let _ = image_from_bytes(&rehash(&bundle.encode()));
            }
            Ok(())
        },
    },
    Target {
        name: "ptx",
        make: |s, rng| mutate(pick(&s.ptx, rng), pick(&s.ptx, rng), rng),
        exec: |_, input, _, _| {
            let Ok(index) = ptx_split::index(String::from_utf8_lossy(input).into_owned()) else {
                return Ok(());
            };
            // What the cut makes of a module it takes, it takes again.
            let globals = index.globals_module().into_iter();
            let kernels = index.kernels().into_iter();
            for text in globals.chain(kernels.filter_map(|k| Some(index.kernel_module(k)?.text))) {
                if let Err(e) = ptx_split::index(text.clone()) {
                    return Err(format!("a cut module does not read back ({e}):\n{text}"));
                }
            }
            Ok(())
        },
    },
    Target {
        name: "hipModuleLoadData",
        make: |s, rng| {
            let input = if rng.below(2) == 0 {
                mutate(pick(&s.spirv, rng), pick(&s.bundles, rng), rng)
            } else {
                mutate(pick(&s.bundles, rng), pick(&s.spirv, rng), rng)
            };
            if rng.below(2) == 0 {
                rehash(&input)
            } else {
                input
            }
        },
        exec: |_, input, _, mem| {
            let at = mem.place(input);
            let mut module: *mut std::ffi::c_void = std::ptr::null_mut();
            // SAFETY: `at` is readable up to the fence; the function must read neither past what
            // the image's structure declares nor past readable memory.
            let code = unsafe { hipModuleLoadData(&mut module, at.cast()) };
            if code == 0 {
                hipModuleUnload(module);
            } else if code == 999 {
                // hipErrorUnknown: a panic caught at the API boundary.
                return Err(
                    "hipModuleLoadData returned hipErrorUnknown (an internal error)".into(),
                );
            }
            Ok(())
        },
    },
];

/// Runs `target` for `execs` inputs over `threads` threads; returns the executions done and the
/// first finding, its input saved to a file.
fn run(target: &Target, execs: u64, threads: u64, seed: u64) -> (u64, Option<String>) {
    let seeds = seeds();
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let finding: std::sync::Mutex<Option<String>> = Default::default();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (seeds, done, stop, finding) = (&seeds, &done, &stop, &finding);
            scope.spawn(move || {
                let mut mem = Fenced::new(64 << 10);
                let mut n = t;
                while n < execs && !stop.load(Ordering::Relaxed) {
                    // Each execution has its own generator: a finding reproduces from its number.
                    let mut rng = Rng(seed ^ n.wrapping_mul(0x2545_f491_4f6c_dd1d));
                    let input = (target.make)(seeds, &mut rng);
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        (target.exec)(seeds, &input, &mut rng, &mut mem)
                    }));
                    let problem = match outcome {
                        Ok(result) => result.err(),
                        Err(panic) => Some(format!(
                            "panicked: {}",
                            panic
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| panic.downcast_ref::<String>().cloned())
                                .unwrap_or_default()
                        )),
                    };
                    if let Some(what) = problem {
                        stop.store(true, Ordering::Relaxed);
                        let dir = std::env::var_os("HIPMLIR_FUZZ_OUT")
                            .map(PathBuf::from)
                            .unwrap_or_else(std::env::temp_dir);
                        let file =
                            dir.join(format!("hipmlir-fuzz-{}-{seed:x}-{n}.bin", target.name));
                        let _ = std::fs::write(&file, &input);
                        finding.lock().unwrap().get_or_insert(format!(
                            "{}: execution {n} (seed {seed:#x}): {what}; input in {}",
                            target.name,
                            file.display()
                        ));
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                    n += threads;
                }
            });
        }
    });
    (done.into_inner(), finding.into_inner().unwrap())
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// Bounded: part of `make test`.
#[test]
fn parsers_survive_mutated_inputs() {
    let mut failures = Vec::new();
    for target in TARGETS {
        let (_, finding) = run(target, 10_000, 2, 0x5eed);
        failures.extend(finding);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The long campaign (see the module's documentation).
#[test]
#[ignore]
fn campaign() {
    let execs = env_u64("HIPMLIR_FUZZ_EXECS", 10_000_000);
    let threads = env_u64(
        "HIPMLIR_FUZZ_THREADS",
        std::thread::available_parallelism().map_or(2, |n| n.get() as u64),
    );
    let seed = env_u64("HIPMLIR_FUZZ_SEED", 0xc0ff_ee00);
    let only = std::env::var("HIPMLIR_FUZZ_TARGETS").ok();
    let mut failures = Vec::new();
    for target in TARGETS {
        let name = target.name;
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|t| t == name))
        {
            continue;
        }
        let started = Instant::now();
        let (done, finding) = run(target, execs, threads, seed);
        let secs = started.elapsed().as_secs_f64();
        println!(
            "fuzz {name}: {done} executions in {secs:.0} s ({:.0}/s, {threads} threads): {}",
            done as f64 / secs.max(1e-9),
            finding.as_deref().unwrap_or("no crash")
        );
        failures.extend(finding);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

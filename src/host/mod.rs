//! The host side of a build: each job in a file of its own.
//!
//! * `cxx`: the host compiler (`$CXX`); `command`: running it and the other tools.
//! * `compile`: host compiles, with precompiled headers (`pch`), precompiled preambles
//!   (`preamble`) and edited copies of the user's headers (`overlay`).
//! * `stubs`: the generated C++ that embeds and registers device images.
//! * `link`: `ld -r` and the program's link.
//! * `objects`: the sections of hipmlir's objects, read, added and removed.

mod command;
mod compile;
mod cxx;
mod link;
mod objects;
mod overlay;
mod pch;
mod preamble;
mod stubs;

pub use compile::{compile_cxx, compile_host_source, needed_kernel_instances};
pub use cxx::HostCompiler;
pub use link::link;
pub use objects::{
    add_bundler_sections, fatbin_bundles, localize_symbols, merge_images, strip_device_code,
    BUNDLER_SECTION_PREFIX, FATBIN_SECTION,
};
pub use overlay::host_text;
pub use stubs::{
    compile_asan_options, compile_kpack_stub, embed_device_ir, embed_image, image_object,
    ASAN_OPTIONS_HOOK,
};

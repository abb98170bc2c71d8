//! hipmlir's compile server.
//!
//! Most of a small device compile is spent starting the process: loading libLLVM, libclang and
//! MLIR (about 200 MB of code), relocating them and running their static constructors. The
//! compile server pays that once. It is the compiler itself (`hipmlir-compiler`), loaded and
//! waiting on a Unix socket; for each compile it forks a child, which takes the caller's working
//! folder, environment, umask and standard streams and runs the compile exactly as a fresh
//! process would. The caller is the light `hipmlir` launcher, which waits for the child's exit
//! status and ends with it.
//!
//! - [`place`]: where a server listens (one per user and compiler build).
//! - [`protocol`]: what a request and an outcome look like on the socket.
//! - [`client`]: the launcher's side.
//! - [`server`]: the server's side.

pub mod client;
pub mod place;
pub mod protocol;
pub mod server;

/// The environment variable that turns the server off (`0`, `off`, `no`, `false`): every
/// compile is then a process of its own, as without a server (the launcher reads it).
pub const SWITCH_VARIABLE: &str = "HIPMLIR_COMPILE_SERVER";

/// The environment variable giving the idle time (seconds) after which a server ends.
pub const IDLE_VARIABLE: &str = "HIPMLIR_COMPILE_SERVER_IDLE";

/// The environment variable naming the folder that holds the servers' sockets.
pub const DIR_VARIABLE: &str = "HIPMLIR_COMPILE_SERVER_DIR";

/// The compiler's hidden option that makes it a server listening on the socket that follows.
pub const SERVE_OPTION: &str = "--serve-compiles";

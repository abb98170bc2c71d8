//! The memory checker's state variable (`-fsanitize=address`): a device variable
//! (`MEMCHECK_STATE_VARIABLE`) through which the runtime gives a checked module its checker
//! state, null until then. The instrumentation itself is a pass of the device pipeline
//! (dialect-passes' `memcheck`); the frontend only declares the variable, with its address
//! kernel, so that the runtime finds it by name as it finds the abort flag.

use melior::ir::Location;

use super::module::ModuleCodegen;
use crate::error::Result;

impl<'c> ModuleCodegen<'c> {
    /// Declares the checker's state variable of a module with kernels.
    pub(crate) fn emit_memcheck_state(&mut self, loc: Location<'c>) -> Result<()> {
        use hipmlir_device_image::MEMCHECK_STATE_VARIABLE as STATE;
        if self.kernels.is_empty() {
            return Ok(());
        }
        self.declare_runtime_pointer(STATE, loc)
    }
}

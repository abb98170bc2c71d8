//! Device code that stops the program: `__builtin_trap()`, and through it `__trap()`, `abort()`,
//! a failed `assert`, a virtual call on an object device code did not construct, and a call
//! through a function pointer that names no device function.
//!
//! A trap ends the kernel on NVIDIA GPUs; OpenCL has no instruction that does. So every trap
//! calls the module's stop function, which first raises the module's abort flag: a device
//! variable (`DEVICE_ABORT_FLAG_VARIABLE`) through which the runtime gives the module a host
//! word, read when each launch completes (the runtime's `device_abort`); a raised word ends the
//! program there, naming the kernel, as HIP's runtime does after a trap. Then it traps: PTX
//! `trap`; on SPIR-V the trap is removed (hipmlir-lower-trap-to-spirv) and the work-item runs on
//! to the kernel's end, which the host never sees.

use melior::dialect::{func, scf};
use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::r#type::IntegerType;
use melior::ir::{Block, Location, Region, RegionLike, Type};

use super::builder::Builder;
use super::function::FunctionCodegen;
use super::module::ModuleCodegen;
use crate::error::Result;
use crate::types::{pointer_type, AddrSpace};

/// The module's stop function: raises the abort flag, then traps.
const STOP_FUNCTION: &str = hipmlir_device_image::DEVICE_STOP_FUNCTION;

impl<'c> ModuleCodegen<'c> {
    /// The symbol of the module's stop function, emitted (with the abort flag) on first use.
    pub(super) fn stop_function(&mut self, loc: Location<'c>) -> Result<&'static str> {
        if self.stop_function_emitted {
            return Ok(STOP_FUNCTION);
        }
        self.stop_function_emitted = true;
        let flag = self.abort_flag(loc)?;
        let ctx = self.ctx;
        let entry = Block::new(&[]);
        let b = Builder::new(ctx, &entry);
        // The flag, when the runtime set it, points to the word to raise.
        let generic = pointer_type(ctx, AddrSpace::Generic);
        let slot = b.address_of(flag, pointer_type(ctx, AddrSpace::Global), loc)?;
        let word = b.load(slot, generic, false, loc)?;
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let address = b.ptr_to_int(word, i64t, loc)?;
        let zero = b.const_int(i64t, 0, loc)?;
        let set = b.cmpi(
            melior::dialect::arith::CmpiPredicate::Ne,
            address,
            zero,
            loc,
        )?;
        let then_block = Block::new(&[]);
        let then_b = Builder::new(ctx, &then_block);
        let one = then_b.const_int(IntegerType::new(ctx, 32).into(), 1, loc)?;
        then_b.store(one, word, true, loc);
        then_b.insert(scf::r#yield(&[], loc));
        let else_block = Block::new(&[]);
        Builder::new(ctx, &else_block).insert(scf::r#yield(&[], loc));
        let then_region = Region::new();
        then_region.append_block(then_block);
        let else_region = Region::new();
        else_region.append_block(else_block);
        b.insert(scf::r#if(set, &[], then_region, else_region, loc));
        b.trap(loc)?;
        b.insert(func::r#return(&[], loc));
        self.define_helper(STOP_FUNCTION, &[], &[], entry, loc)?;
        Ok(STOP_FUNCTION)
    }

    /// The abort flag: a pointer the runtime sets, null until then; a device variable of every
    /// module that can stop the program, so that the runtime finds it by name.
    fn abort_flag(&mut self, loc: Location<'c>) -> Result<&'static str> {
        use hipmlir_device_image::DEVICE_ABORT_FLAG_VARIABLE as FLAG;
        self.declare_runtime_pointer(FLAG, loc)?;
        Ok(FLAG)
    }
}

impl<'c> FunctionCodegen<'c, '_> {
    /// `__builtin_trap()`: stops the program (see the module's doc).
    pub fn stop_program(&mut self, loc: Location<'c>) -> Result<()> {
        let stop = self.module.stop_function(loc)?;
        let callee = FlatSymbolRefAttribute::new(self.ctx(), stop);
        self.b.insert(func::call(self.ctx(), callee, &[], &[], loc));
        Ok(())
    }
}

//! Launch sites as MLIR: each `<<<>>>` or hipLaunchKernelGGL launch of a kernel compiled here
//! becomes a `gpu.launch` (in a function standing for its host function) whose body calls the
//! kernel, with the kernel's metadata attached: the form Polygeist raises launches to, which the
//! outliner turns into `gpu.launch_func` of the outlined `gpu.func`. Host code itself is compiled
//! by the host compiler; these functions only carry the launch structure (grid, block, dynamic
//! shared memory size and the kernel's arguments are the function's parameters).

use hipmlir_device_image::{
    HOST_ATTRIBUTE, KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE, KERNEL_ATTRIBUTE,
    KERNEL_NAME_ATTRIBUTE,
};
use melior::dialect::func;
use melior::ir::attribute::{DenseI32ArrayAttribute, FlatSymbolRefAttribute, StringAttribute};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Attribute, Block, Location, Region, RegionLike, Type};

use super::builder::{block_arguments, Builder};
use super::module::ModuleCodegen;
use crate::clang::Cursor;
use crate::error::Result;
use crate::kernel_abi::{kernel_args_attr, kernel_args_size_attr, kernel_info};
use crate::launches::LaunchSite;

impl<'c> ModuleCodegen<'c> {
    pub fn emit_launch_site(
        &mut self,
        index: usize,
        kernel: &Cursor,
        site: &LaunchSite,
    ) -> Result<()> {
        let ctx = self.ctx;
        let l = site.call.location();
        let loc = Location::new(ctx, &l.file, l.line as usize, l.column as usize);
        let info = kernel_info(kernel)?;
        let (kernel_inputs, _) = self.kernel_inputs(kernel)?;
        let index_type = Type::index(ctx);
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let mut inputs = vec![index_type; 6];
        inputs.push(i32t);
        inputs.extend(kernel_inputs.iter().copied());
        let entry = Block::new(&inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
        let args = block_arguments(&entry);
        let b = Builder::new(ctx, &entry);

        // gpu.launch blocks(...) in (grid) threads(...) in (block) dynamic_shared_memory_size
        let body = Block::new(&[(index_type, loc); 12]);
        let inner = Builder::new(ctx, &body);
        let callee = FlatSymbolRefAttribute::new(ctx, &info.name).into();
        inner.op(
            "func.call",
            &args[7..],
            &[],
            &[("callee", callee)],
            vec![],
            loc,
        )?;
        inner.op("gpu.terminator", &[], &[], &[], vec![], loc)?;
        let region = Region::new();
        region.append_block(body);
        let segments = DenseI32ArrayAttribute::new(ctx, &[0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]).into();
        b.op(
            "gpu.launch",
            &args[..7],
            &[],
            &[
                ("operandSegmentSizes", segments),
                (
                    KERNEL_ATTRIBUTE,
                    FlatSymbolRefAttribute::new(ctx, &info.name).into(),
                ),
                (
                    KERNEL_NAME_ATTRIBUTE,
                    StringAttribute::new(ctx, &info.source_name).into(),
                ),
                (KERNEL_ARGS_ATTRIBUTE, kernel_args_attr(ctx, &info)),
                (
                    KERNEL_ARGS_SIZE_ATTRIBUTE,
                    kernel_args_size_attr(ctx, &info),
                ),
            ],
            vec![region],
            loc,
        )?;
        b.insert(func::r#return(&[], loc));

        let host = site
            .host_function
            .map(|f| f.spelling())
            .unwrap_or_else(|| "host".into());
        let name = format!("{host}.launch.{index}");
        let region = Region::new();
        region.append_block(entry);
        let function_type = FunctionType::new(ctx, &inputs, &[]);
        self.module_builder().function(
            &name,
            function_type,
            &[(HOST_ATTRIBUTE, Attribute::unit(ctx))],
            region,
            loc,
        )?;
        Ok(())
    }
}

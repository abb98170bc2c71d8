// Registers the upstream MLIR passes hipmlir's pipelines name (pipeline.rs, and the
// serialization's gpu-module-to-binary), and no others: registering all of MLIR's ~500 passes
// cost every compile about 2 ms. hipmlir-opt, a tool for any pipeline, registers them all.
// A test (pipeline.rs) checks that every pipeline validates with only these.
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

extern "C" void hipmlirRegisterPipelinePasses() {
  mlir::registerInliner();
  mlir::registerCanonicalizer();
  mlir::registerCSE();
  mlir::registerSymbolDCE();
  mlir::registerGpuSPIRVAttachTarget();
  mlir::registerConvertGPUToSPIRV();
  mlir::spirv::registerSPIRVLowerABIAttributesPass();
  mlir::spirv::registerSPIRVUpdateVCEPass();
  mlir::registerGpuModuleToBinaryPass();
  mlir::registerGpuNVVMAttachTarget();
  mlir::registerSCFToControlFlowPass();
  mlir::registerConvertGpuOpsToNVVMOps();
  mlir::registerConvertMathToLLVMPass();
  mlir::registerReconcileUnrealizedCastsPass();
}

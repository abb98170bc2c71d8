//! `hipmlir-opt`: hipmlir's mlir-opt. Reads MLIR (a file or stdin), runs a pass pipeline of
//! hipmlir's passes and MLIR's upstream ones, prints the result. Errors are diagnostics
//! (`file:line:col: error: ...`) and exit status 1. The lit tests (tests/lit) are written with it.

use std::io::Write;
use std::process::ExitCode;

use hipmlir_dialect_passes::{describe_passes, Diagnostic, Element, LowerError, Pipeline};
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use melior::ir::{Module, Operation};
use melior::{Context, StringRef};

const USAGE: &str = "\
hipmlir-opt: runs hipmlir's and MLIR's passes on MLIR

USAGE:
  hipmlir-opt [options] [input.mlir | -]      (stdin when no input is given)

OPTIONS:
  --pass-pipeline=<pipeline>   a textual pipeline: 'builtin.module(hipmlir-outline-kernels,cse)'
  -p <pipeline>                the same
  --<pass>[=<options>]         appends one pass (--canonicalize, --hipmlir-lower-pointers-to-spirv,
                               --convert-gpu-to-spirv='use-64bit-index=true')
  --spirv-pipeline             appends hipmlir's whole device pipeline for SPIR-V
  --split-input-file           each part between '// -----' lines is a module of its own
  --mlir-print-ir-after-all    the IR after every pass, to stderr
  --mlir-print-debuginfo       print locations
  -o <file>                    output file (default stdout)
  --list-passes                hipmlir's passes and the device pipeline
  -h, --help                   this text
";

struct Options {
    input: Option<String>,
    output: Option<String>,
    elements: Vec<Element>,
    split_input_file: bool,
    print_ir_after_all: bool,
    debug_info: bool,
}

enum Command {
    Run(Options),
    Print(String),
}

fn parse_args(args: &[String]) -> Result<Command, String> {
    let mut o = Options {
        input: None,
        output: None,
        elements: Vec::new(),
        split_input_file: false,
        print_ir_after_all: false,
        debug_info: false,
    };
    let append = |o: &mut Options, text: &str| -> Result<(), String> {
        let pipeline = Pipeline::parse(text).map_err(|e| e.to_string())?;
        o.elements.extend(pipeline_elements(&pipeline));
        Ok(())
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let mut value = |flag: &str| -> Result<String, String> {
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("argument to '{flag}' is missing"))
        };
        match arg {
            "-h" | "--help" => return Ok(Command::Print(USAGE.to_string())),
            "--list-passes" => return Ok(Command::Print(describe_passes())),
            "--split-input-file" => o.split_input_file = true,
            "--mlir-print-ir-after-all" => o.print_ir_after_all = true,
            "--mlir-print-debuginfo" => o.debug_info = true,
            "--spirv-pipeline" => {
                let pipeline = hipmlir_dialect_passes::spirv_pipeline(&Default::default());
                o.elements.extend(pipeline_elements(&pipeline));
            }
            "-o" => o.output = Some(value("-o")?),
            "-p" | "--pass-pipeline" => {
                let text = value(arg)?;
                append(&mut o, &text)?;
            }
            _ if arg.starts_with("--pass-pipeline=") => {
                append(&mut o, &arg["--pass-pipeline=".len()..])?;
            }
            _ if arg.starts_with("--") => {
                // `--name` or `--name=options`: one pass with MLIR's option syntax.
                let (name, options) = arg[2..].split_once('=').unwrap_or((&arg[2..], ""));
                let options = options.trim_matches(|c| c == '"' || c == '\'');
                let text = if options.is_empty() {
                    name.to_string()
                } else {
                    format!("{name}{{{options}}}")
                };
                append(&mut o, &text)?;
            }
            "-" => o.input = Some("-".into()),
            _ if arg.starts_with('-') => return Err(format!("unknown option '{arg}'")),
            _ => {
                if o.input.is_some() {
                    return Err("only one input file may be given".into());
                }
                o.input = Some(arg.to_string());
            }
        }
        i += 1;
    }
    Ok(Command::Run(o))
}

/// The top-level elements of a parsed pipeline.
fn pipeline_elements(pipeline: &Pipeline) -> Vec<Element> {
    pipeline.elements().to_vec()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("hipmlir-opt: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Ok(false): a module failed (its diagnostics are printed).
fn run(args: &[String]) -> Result<bool, String> {
    let options = match parse_args(args)? {
        Command::Print(text) => {
            print!("{text}");
            return Ok(true);
        }
        Command::Run(options) => options,
    };
    let (name, text) = match options.input.as_deref() {
        None | Some("-") => {
            use hipmlir_device_image::files::{read_bounded, MAX_DEVICE_FILE};
            let cannot = |e: &dyn std::fmt::Display| format!("cannot read stdin: {e}");
            let bytes = read_bounded(std::io::stdin().lock(), "<stdin>", MAX_DEVICE_FILE)
                .map_err(|e| cannot(&e))?;
            let text = String::from_utf8(bytes).map_err(|e| cannot(&e))?;
            ("<stdin>".to_string(), text)
        }
        Some(path) => {
            use hipmlir_device_image::files::{read_regular, MAX_DEVICE_FILE};
            let cannot = |e: &dyn std::fmt::Display| format!("cannot read '{path}': {e}");
            let bytes = read_regular(std::path::Path::new(path), MAX_DEVICE_FILE)
                .map_err(|e| cannot(&e))?;
            let text = String::from_utf8(bytes).map_err(|e| cannot(&e))?;
            (path.to_string(), text)
        }
    };
    let pipeline = Pipeline::from_elements(options.elements.clone());
    let ctx = hipmlir_dialect_passes::new_context_with_all_passes();
    // A pass nobody knows is an error before any input is read.
    pipeline.validate(&ctx).map_err(|e| e.to_string())?;
    let chunks: Vec<(usize, String)> = if options.split_input_file {
        split_input(&text)
    } else {
        vec![(0, text)]
    };
    let mut outputs = Vec::new();
    let mut ok = true;
    for (first_line, chunk) in chunks {
        match process(&ctx, &name, first_line, &chunk, &pipeline, &options) {
            Ok(text) => outputs.push(text),
            Err(diagnostics) => {
                ok = false;
                eprintln!("{diagnostics}");
            }
        }
    }
    let text = outputs.join("// -----\n");
    match options.output.as_deref() {
        None | Some("-") => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to stdout: {e}"))?,
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write '{path}': {e}"))?
        }
    }
    Ok(ok)
}

/// The parts of a `--split-input-file` input with the line each starts at.
fn split_input(text: &str) -> Vec<(usize, String)> {
    let mut chunks = vec![(0, String::new())];
    for (n, line) in text.lines().enumerate() {
        if line.trim() == "// -----" {
            chunks.push((n + 1, String::new()));
        } else if let Some((_, chunk)) = chunks.last_mut() {
            chunk.push_str(line);
            chunk.push('\n');
        }
    }
    chunks
}

/// One module: parsed, run through the pipeline, printed; or its diagnostics.
fn process(
    ctx: &Context,
    name: &str,
    first_line: usize,
    chunk: &str,
    pipeline: &Pipeline,
    options: &Options,
) -> Result<String, String> {
    // Blank lines before the part keep its line numbers those of the file.
    let source = "\n".repeat(first_line) + chunk;
    let (module, messages) =
        hipmlir_dialect_passes::capture_diagnostics(ctx, || parse(ctx, name, &source));
    let mut module = match module {
        Some(module) => module,
        None => {
            // Several top-level operations (or none): the implicit module mlir-opt puts around
            // them, opened where it keeps line numbers (in the padding, else on line 1).
            let wrapped = match first_line {
                0 => format!("module {{ {chunk}\n}}"),
                n => format!("module {{{}{chunk}\n}}", "\n".repeat(n)),
            };
            match hipmlir_dialect_passes::capture_diagnostics(ctx, || parse(ctx, name, &wrapped)) {
                (Some(module), _) => module,
                (None, _) => return Err(diagnostics_text(name, &messages)),
            }
        }
    };
    pipeline
        .run(ctx, &mut module, options.print_ir_after_all)
        .map_err(|e| match e {
            LowerError::Pass { stage, diagnostics } => {
                format!(
                    "{}\nnote: while {stage}",
                    diagnostics_text(name, &diagnostics)
                )
            }
            // Already `file:line:col: error: ...`.
            e @ (LowerError::Unsupported { .. } | LowerError::Link(_)) => e.to_string(),
            e => diagnostics_text(
                name,
                &[Diagnostic {
                    location: None,
                    message: e.to_string(),
                }],
            ),
        })?;
    let flags = OperationPrintingFlags::new().enable_debug_info(options.debug_info, false);
    module
        .as_operation()
        .to_string_with_flags(flags)
        .map(|t| if t.ends_with('\n') { t } else { t + "\n" })
        .map_err(|e| format!("{name}: error: cannot print the module: {e}"))
}

/// Parses one builtin.module from MLIR text with `name` as the file of its locations; None when
/// the text does not parse (MLIR emitted why) or holds something else.
fn parse<'c>(ctx: &'c Context, name: &str, source: &str) -> Option<Module<'c>> {
    // SAFETY: parses `source` in `ctx`; a null operation (a parse error) is checked below.
    let raw = unsafe {
        mlir_sys::mlirOperationCreateParse(
            ctx.to_raw(),
            StringRef::new(source).to_raw(),
            StringRef::new(name).to_raw(),
        )
    };
    if raw.ptr.is_null() {
        return None;
    }
    // SAFETY: a new operation that nothing else owns (dropped here unless it is a module).
    Module::from_operation(unsafe { Operation::from_raw(raw) })
}

/// Diagnostics as `file:line:col: error: message` lines; one without a location is the
/// input's.
fn diagnostics_text(name: &str, diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .flat_map(|d| {
            let at = d
                .location
                .as_ref()
                .map_or_else(|| name.to_string(), |l| l.to_string());
            d.message
                .lines()
                .map(move |line| format!("{at}: error: {line}"))
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

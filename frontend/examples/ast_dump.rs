//! Prints the libclang cursor tree of a HIP file as the frontend sees it (a tool for developers).
//! Usage: cargo run -p hipmlir-frontend --example ast_dump -- FILE [clang args...]
use hipmlir_frontend::clang::{Cursor, TranslationUnit};

fn dump(c: Cursor, depth: usize) {
    dump_filtered(c, depth, true)
}

fn dump_filtered(c: Cursor, depth: usize, main_only: bool) {
    if main_only
        && depth > 0
        && !c.is_in_main_file()
        && !c.kind_name().contains("attr")
        && !c.kind_name().contains("Attr")
    {
        return;
    }
    let loc = c.location();
    let target = c
        .referenced()
        .filter(|_| c.kind_name().contains("Ref") || c.kind_name().contains("Call"))
        .map(|r| {
            let l = r.canonical().location();
            format!(" -> {} {}:{}", r.kind_name(), l.file, l.line)
        })
        .unwrap_or_default();
    println!(
        "{:indent$}{} '{}' type='{}' {}:{}{target}",
        "",
        c.kind_name(),
        c.spelling(),
        c.ty().spelling(),
        loc.line,
        loc.column,
        indent = depth * 2
    );
    for child in c.children() {
        dump_filtered(child, depth + 1, main_only);
    }
    // With HIPMLIR_AST_FOLLOW set, show the instantiations that calls refer to.
    if std::env::var_os("HIPMLIR_AST_FOLLOW").is_some() && c.kind_name() == "DeclRefExpr" {
        if let Some(f) = c.referenced().filter(|f| f.kind_name() == "FunctionDecl") {
            println!("{:indent$}=> instantiation:", "", indent = depth * 2 + 2);
            dump_filtered(f, depth + 2, false);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((file, rest)) = args.split_first() else {
        eprintln!("usage: ast_dump FILE [clang args...]");
        std::process::exit(2);
    };
    match TranslationUnit::parse(std::path::Path::new(file), rest, None) {
        Ok((tu, _)) => dump(tu.cursor(), 0),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

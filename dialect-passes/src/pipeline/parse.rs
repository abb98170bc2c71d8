//! MLIR's textual pipeline syntax, for `hipmlir-opt`: `builtin.module(a,b{opt=1},gpu.module(c))`
//! or a bare list of elements run on the module. A name hipmlir registered is its pass (its
//! options checked); any other name is MLIR's, left for MLIR's parser to judge.

use super::{Element, Pass};
use crate::registry::{self, PassOptions};
use crate::LowerError;

/// The elements `text` names, run on the module.
pub(super) fn pipeline(text: &str) -> Result<Vec<Element>, LowerError> {
    let mut parser = Parser { text, pos: 0 };
    let elements = parser.list(None).map_err(LowerError::Pipeline)?;
    let elements = match <[Element; 1]>::try_from(elements) {
        Ok([Element::Nest { anchor, elements }]) if anchor == "builtin.module" => elements,
        Ok([one]) => vec![one],
        Err(elements) => elements,
    };
    Ok(elements)
}

/// The element of pass `name` with the options text `options`.
fn pass(name: String, options: String) -> Result<Element, String> {
    Ok(Element::Pass(match registry::find(&name) {
        Some(pass) => Pass::Hipmlir {
            pass,
            options: PassOptions::parse(pass, &options)?,
        },
        None => Pass::Upstream { name, options },
    }))
}

/// MLIR's pipeline grammar: `element (',' element)*`, an element being `name`, `name{options}`
/// or `op-name(elements)`.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> String {
        format!(
            "invalid pass pipeline '{}': {what} at offset {}",
            self.text, self.pos
        )
    }

    /// Elements up to `closing` (or the end of the text).
    fn list(&mut self, closing: Option<char>) -> Result<Vec<Element>, String> {
        let mut elements = Vec::new();
        self.skip_spaces();
        if self.peek() == closing {
            self.pos += closing.map_or(0, char::len_utf8);
            return Ok(elements);
        }
        loop {
            self.skip_spaces();
            let start = self.pos;
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '$'))
            {
                self.pos += 1;
            }
            let name = self.text[start..self.pos].to_string();
            if name.is_empty() {
                return Err(self.error("expected a pass or operation name"));
            }
            self.skip_spaces();
            match self.peek() {
                Some('{') => {
                    let open = self.pos + 1;
                    let mut depth = 0usize;
                    loop {
                        match self.peek() {
                            None => return Err(self.error("unterminated '{'")),
                            Some('{') => depth += 1,
                            Some('}') => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            Some(_) => {}
                        }
                        self.pos += self.peek().map_or(1, char::len_utf8);
                    }
                    let options = self.text[open..self.pos].trim().to_string();
                    self.pos += 1;
                    elements.push(pass(name, options)?);
                }
                Some('(') => {
                    self.pos += 1;
                    let inner = self.list(Some(')'))?;
                    elements.push(Element::Nest {
                        anchor: name,
                        elements: inner,
                    });
                }
                _ => elements.push(pass(name, String::new())?),
            }
            self.skip_spaces();
            match self.peek() {
                Some(',') => self.pos += 1,
                c if c == closing => {
                    self.pos += closing.map_or(0, char::len_utf8);
                    return Ok(elements);
                }
                None => return Err(self.error("expected ')'")),
                Some(_) => return Err(self.error("expected ',' or the end of the list")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{LowerError, Pipeline};

    #[test]
    fn parses_prints_and_splits_nested_pipelines() {
        let text = "builtin.module(a,b{x=1 y=two},gpu.module(c,spirv.module(d)),e)";
        let p = Pipeline::parse(text).unwrap();
        assert_eq!(p.to_string(), text);
        assert_eq!(p.pass_names(), ["a", "b", "c", "d", "e"]);
        let (head, tail) = p.split_after("c").unwrap();
        assert_eq!(
            head.to_string(),
            "builtin.module(a,b{x=1 y=two},gpu.module(c))"
        );
        assert_eq!(
            tail.to_string(),
            "builtin.module(gpu.module(spirv.module(d)),e)"
        );
        let (head, tail) = p.split_after("e").unwrap();
        assert_eq!(head, p);
        assert!(tail.is_empty());
        assert!(p.split_after("z").is_none());
        // A bare list is the module's.
        assert_eq!(Pipeline::parse(" a , b ").unwrap().pass_names(), ["a", "b"]);
    }

    #[test]
    fn reports_bad_pipelines() {
        for bad in ["a,", "a(b", "a{x", "(a)", "a b"] {
            assert!(
                matches!(Pipeline::parse(bad), Err(LowerError::Pipeline(_))),
                "{bad}"
            );
        }
        let e = Pipeline::parse("hipmlir-outline-kernels{bogus=1}").unwrap_err();
        assert!(e.to_string().contains("'bogus' is not an option"), "{e}");
    }

    /// hipmlir's passes parse to themselves, their options checked and kept.
    #[test]
    fn names_hipmlir_passes_typed() {
        let p = Pipeline::parse("hipmlir-lower-pointers-to-spirv{native-float-atomics=true},cse")
            .unwrap();
        let built = Pipeline::from_elements(vec![
            crate::Element::pass_with(
                &crate::registry::LOWER_POINTERS_TO_SPIRV,
                crate::registry::PassOptions::default()
                    .with_flag(crate::registry::NATIVE_FLOAT_ATOMICS),
            ),
            crate::Element::upstream("cse"),
        ]);
        assert_eq!(p, built);
        assert_eq!(
            p.to_string(),
            "builtin.module(hipmlir-lower-pointers-to-spirv{native-float-atomics=true},cse)"
        );
    }
}

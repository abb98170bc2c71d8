//! Which functions of a spirv.module call which: for passes that act on everything a kernel
//! reaches (a kernel's entry point is a wrapper calling its body, which calls the helpers
//! inlining left).

use std::collections::{HashMap, HashSet};

use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::OperationRef;

use crate::symbols::symbol;

#[derive(Default)]
pub(crate) struct CallGraph {
    /// Per function, the functions it calls.
    callees: HashMap<String, Vec<String>>,
}

impl CallGraph {
    /// Records the calls of `function` (a spirv.func); its name, if it has one.
    pub(crate) fn note(&mut self, function: &OperationRef) -> Option<String> {
        let name = symbol(function, "sym_name")?;
        let mut callees = Vec::new();
        function.walk(WalkOrder::PreOrder, |inner| {
            if inner.name().as_string_ref().as_str() == Ok("spirv.FunctionCall") {
                callees.extend(symbol(&inner, "callee"));
            }
            WalkResult::Advance
        });
        self.callees.insert(name.clone(), callees);
        Some(name)
    }

    /// `function` and every function it reaches through calls, each once (recursion too).
    pub(crate) fn reached(&self, function: &str) -> HashSet<String> {
        let mut seen = HashSet::new();
        let mut stack = vec![function.to_string()];
        while let Some(f) = stack.pop() {
            if seen.insert(f.clone()) {
                stack.extend(self.callees.get(&f).into_iter().flatten().cloned());
            }
        }
        seen
    }
}

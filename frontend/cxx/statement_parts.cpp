// The parts of `for` and `if` statements, of atomic builtin calls and of new- and
// delete-expressions, read from clang's own AST nodes.
//
// libclang's C API lists a statement's children without saying which optional parts are absent
// (`for (;; i++)` and `for (; i < n;)` both have one header child), and the source text cannot
// tell them apart when the statement comes from a macro. Clang's AST knows; these functions use
// only its inline accessors, so nothing beyond libclang itself is linked. A libclang cursor for a
// statement holds the `clang::Stmt *` in `data[1]`.
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>

// A private member named where C++ allows it (an explicit instantiation's arguments are not
// access-checked): the constructor's initializers, whose accessor is not inline.
namespace {
template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member_of(Tag) { return Member; }
};
struct CtorInitializersTag {
  using type = clang::LazyCXXCtorInitializersPtr clang::CXXConstructorDecl::*;
  friend type member_of(CtorInitializersTag);
};
template struct Expose<CtorInitializersTag, &clang::CXXConstructorDecl::CtorInitializers>;
}  // namespace

extern "C" {

// The node libclang shows for a statement: it looks through the ConstantExpr clang wraps around
// constant conditions (`if constexpr`).
static const void *shown(const clang::Stmt *s) {
  while (const auto *c = llvm::dyn_cast_or_null<clang::ConstantExpr>(s)) s = c->getSubExpr();
  return s;
}

// The condition variable's declaration (libclang shows it as a VarDecl cursor), or null.
static const void *condition_variable(const clang::DeclStmt *d) {
  return d && d->isSingleDecl() ? d->getSingleDecl() : nullptr;
}

// Writes init, condition variable, condition, increment and body (null when absent).
void hipmlir_for_parts(const void *stmt, const void *parts[5]) {
  const auto *s = static_cast<const clang::ForStmt *>(static_cast<const clang::Stmt *>(stmt));
  parts[0] = shown(s->getInit());
  parts[1] = condition_variable(s->getConditionVariableDeclStmt());
  parts[2] = shown(s->getCond());
  parts[3] = shown(s->getInc());
  parts[4] = shown(s->getBody());
}

// Writes init, condition variable, condition, then and else (null when absent).
void hipmlir_if_parts(const void *stmt, const void *parts[5]) {
  const auto *s = static_cast<const clang::IfStmt *>(static_cast<const clang::Stmt *>(stmt));
  parts[0] = shown(s->getInit());
  parts[1] = condition_variable(s->getConditionVariableDeclStmt());
  parts[2] = shown(s->getCond());
  parts[3] = shown(s->getThen());
  parts[4] = shown(s->getElse());
}

// Whether an expression names an object, an lvalue or an xvalue (`reinterpret_cast<T&>(x)`,
// `static_cast<Base&&>(d)`, `std::move(t)` seen as its base): libclang shows expression types
// without their value category.
int hipmlir_is_glvalue(const void *expr) {
  const auto *s = static_cast<const clang::Stmt *>(expr);
  const auto *e = llvm::dyn_cast<clang::Expr>(s);
  return e && e->isGLValue();
}

// Whether a template parameter or a function parameter is a pack (`typename... Ts`,
// `Ts... args`): libclang does not say.
int hipmlir_is_pack(const void *decl) {
  const auto *d = static_cast<const clang::Decl *>(decl);
  if (const auto *t = llvm::dyn_cast<clang::TemplateTypeParmDecl>(d)) {
    const auto *type = llvm::dyn_cast_or_null<clang::TemplateTypeParmType>(t->getTypeForDecl());
    return type && type->isParameterPack();
  }
  if (const auto *n = llvm::dyn_cast<clang::NonTypeTemplateParmDecl>(d)) return n->isParameterPack();
  if (const auto *t = llvm::dyn_cast<clang::TemplateTemplateParmDecl>(d)) return t->isParameterPack();
  if (const auto *p = llvm::dyn_cast<clang::ParmVarDecl>(d))
    return llvm::isa<clang::PackExpansionType>(p->getType().getTypePtr());
  return 0;
}

// An atomic builtin call (`__atomic_fetch_add(p, v, order)`, `__hip_atomic_load(p, order, scope)`),
// which libclang shows as an unexposed expression: its builtin's name and its operands in clang's
// order (pointer, order, value, failure order, second value, weak, HIP scope). Returns the number
// of operands, or -1 when the expression is not an atomic builtin call.
int hipmlir_atomic_parts(const void *expr, const char **name, size_t *name_len,
                         const void *parts[8]) {
  const auto *e = llvm::dyn_cast<clang::AtomicExpr>(static_cast<const clang::Stmt *>(expr));
  if (!e) return -1;
  llvm::StringRef op = e->getOpAsString();
  *name = op.data();
  *name_len = op.size();
  unsigned n = e->getNumSubExprs();
  if (n > 8) return -1;
  for (unsigned i = 0; i < n; ++i) parts[i] = shown(e->getSubExprs()[i]);
  return static_cast<int>(n);
}

// A new-expression (`new T`, `new T(args)`, `new T[n]{...}`, `new (p) T`): libclang lists its
// placement arguments, array size and initializer as children without saying which is which.
// Writes whether it is an array new, whether the allocation function takes the alignment,
// whether the initializer is a zeroing (value-initialization), the array size and initializer
// (null when absent), the allocation function's declaration (a
// libclang cursor's data[0] for it), and up to 4 placement arguments. Returns the number of
// placement arguments, or -1 when the expression is not a new-expression or has more.
int hipmlir_new_parts(const void *expr, int *is_array, int *pass_alignment, int *zeroes,
                      const void **array_size, const void **initializer,
                      const void **operator_new, const void *placement[4]) {
  const auto *e = llvm::dyn_cast<clang::CXXNewExpr>(static_cast<const clang::Stmt *>(expr));
  if (!e) return -1;
  unsigned n = e->getNumPlacementArgs();
  if (n > 4) return -1;
  *is_array = e->isArray();
  *pass_alignment = e->passAlignment();
  auto size = e->getArraySize();
  *array_size = size && *size ? shown(*size) : nullptr;
  *initializer = shown(e->getInitializer());
  // `new T()`: value-initialization zeroes the object first (then runs a trivial constructor),
  // or is only a zeroing (scalars, and classes without constructors: `*zeroes` is then 2).
  const clang::Expr *init = e->getInitializer();
  const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(init);
  if (llvm::isa_and_nonnull<clang::ImplicitValueInitExpr>(init) ||
      llvm::isa_and_nonnull<clang::CXXScalarValueInitExpr>(init)) {
    *zeroes = 2;
  } else {
    *zeroes = construct && construct->requiresZeroInitialization();
  }
  const clang::Decl *allocator = e->getOperatorNew();
  *operator_new = allocator;
  for (unsigned i = 0; i < n; ++i) placement[i] = shown(e->getPlacementArg(i));
  return static_cast<int>(n);
}

// A delete-expression: whether it is `delete[]`, and the deallocation function's declaration
// (a libclang cursor's data[0] for it; null when clang chose none). Returns -1 when the
// expression is not a delete-expression.
int hipmlir_delete_parts(const void *expr, int *is_array, const void **operator_delete) {
  const auto *e = llvm::dyn_cast<clang::CXXDeleteExpr>(static_cast<const clang::Stmt *>(expr));
  if (!e) return -1;
  *is_array = e->isArrayForm();
  const clang::Decl *deallocator = e->getOperatorDelete();
  *operator_delete = deallocator;
  return 0;
}

// Whether destroying an object of a class does nothing (clang's trivial destructor: no
// user-provided destructor, and none in its bases and members): 1 or 0, or -1 when the
// declaration is not a C++ class with a definition.
int hipmlir_has_trivial_destructor(const void *decl) {
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  if (!r || !r->hasDefinition()) return -1;
  return r->hasTrivialDestructor();
}

// What an expression libclang shows as unexposed is, among the nodes of object lifetime:
// 1 a full-expression with cleanups (ExprWithCleanups), 2 a temporary to destroy at the end of
// its full-expression (CXXBindTemporaryExpr), 3 a temporary materialized for the rest of its
// full-expression, 4 one whose lifetime a reference extends to its own scope, 5 one extended to
// the program's end (static storage), 6 a default member initializer used (CXXDefaultInitExpr),
// 7 a value-initialization (ImplicitValueInitExpr), 8 a default argument (CXXDefaultArgExpr);
// 0 for anything else.
int hipmlir_lifetime_kind(const void *expr) {
  const auto *s = static_cast<const clang::Stmt *>(expr);
  if (llvm::isa<clang::ExprWithCleanups>(s)) return 1;
  if (llvm::isa<clang::CXXBindTemporaryExpr>(s)) return 2;
  if (const auto *m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(s)) {
    const clang::ValueDecl *extending = m->getExtendingDecl();
    if (!extending) return 3;
    if (const auto *v = llvm::dyn_cast<clang::VarDecl>(extending)) {
      bool local = v->getDeclContext()->isFunctionOrMethod() &&
                   v->getStorageClass() != clang::SC_Static &&
                   v->getStorageClass() != clang::SC_Extern;
      return local ? 4 : 5;
    }
    return 4;
  }
  if (llvm::isa<clang::CXXDefaultInitExpr>(s)) return 6;
  if (llvm::isa<clang::ImplicitValueInitExpr>(s)) return 7;
  if (llvm::isa<clang::CXXDefaultArgExpr>(s)) return 8;
  return 0;
}

// Whether an expression libclang shows as unexposed is the index of the element an array-init
// loop initializes (ArrayInitIndexExpr): clang writes such loops for an array initialized
// element by element from another (the implicit copy of an array member, a lambda's capture of
// an array by copy, a structured binding of an array).
int hipmlir_is_array_init_index(const void *expr) {
  return llvm::isa<clang::ArrayInitIndexExpr>(static_cast<const clang::Stmt *>(expr));
}

// The parts of an array-init loop: the array it copies from (the opaque value's source, which
// libclang shows in place of the opaque value wherever the element's initializer names it) and
// the initializer of one element (the element count is the array type's). Returns 1, or 0 for
// another node or an opaque value without its source.
int hipmlir_array_init_loop(const void *expr, const void **source, const void **element) {
  const auto *l = llvm::dyn_cast<clang::ArrayInitLoopExpr>(static_cast<const clang::Stmt *>(expr));
  if (!l || !l->getCommonExpr()->getSourceExpr()) return 0;
  *source = l->getCommonExpr()->getSourceExpr();
  *element = l->getSubExpr();
  return 1;
}

// 1 when a construct expression zero-initializes the object before its constructor runs:
// value-initialization (`T()`, `T{}`) of a class whose default constructor is not
// user-provided; 0 otherwise.
int hipmlir_construct_zeroes(const void *expr) {
  const auto *c = llvm::dyn_cast<clang::CXXConstructExpr>(static_cast<const clang::Stmt *>(expr));
  return c && c->requiresZeroInitialization() ? 1 : 0;
}

// The destructor of a class (its declaration), or null when destroying one does nothing
// (a trivial destructor) or the declaration is not a C++ class with a definition. Sema declares
// the implicit destructor among the class's members once it is needed. `*virtual_bases` says
// whether the class has virtual bases.
const void *hipmlir_destructor(const void *decl, int *virtual_bases) {
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  if (!r || !r->hasDefinition()) return nullptr;
  r = r->getDefinition();
  *virtual_bases = r->getNumVBases() != 0;
  if (r->hasTrivialDestructor()) return nullptr;
  for (const clang::Decl *member : r->noload_decls())
    if (llvm::isa<clang::CXXDestructorDecl>(member)) return member;
  return nullptr;
}

// Whether a class has a virtual table pointer (virtual functions, its own or its bases'): 1 or
// 0, or -1 when the declaration is not a C++ class with a definition.
int hipmlir_is_dynamic_class(const void *decl) {
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  if (!r || !r->hasDefinition()) return -1;
  return r->getDefinition()->isDynamicClass();
}

// The member functions a class declares (those in memory: a class read from a precompiled
// header has its members read in by a visit of its children first), up to `max`; returns
// their number, or -1 when the declaration is not a C++ class with a definition.
int hipmlir_record_methods(const void *decl, const void **out, int max) {
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  if (!r || !r->hasDefinition()) return -1;
  int n = 0;
  for (const clang::Decl *member : r->getDefinition()->noload_decls()) {
    if (!llvm::isa<clang::CXXMethodDecl>(member)) continue;
    if (n >= max) return -1;
    out[n++] = member;
  }
  return n;
}

// Whether a member call names its function with a qualifier (`p->Base::f()`), which calls that
// function itself, never an override.
int hipmlir_is_qualified_member_call(const void *expr) {
  const auto *c = llvm::dyn_cast<clang::CXXMemberCallExpr>(static_cast<const clang::Stmt *>(expr));
  if (!c) return 0;
  const clang::Expr *callee = c->getCallee();
  while (const auto *p = llvm::dyn_cast<clang::ParenExpr>(callee)) callee = p->getSubExpr();
  const auto *m = llvm::dyn_cast<clang::MemberExpr>(callee);
  return m && m->hasQualifier();
}

// Whether a field has a default member initializer (`int n = 0;`, `T v{a, b};`): 1 or 0, or -1
// when the declaration is not a field.
int hipmlir_has_in_class_initializer(const void *decl) {
  const auto *f = llvm::dyn_cast<clang::FieldDecl>(static_cast<const clang::Decl *>(decl));
  if (!f) return -1;
  return f->hasInClassInitializer();
}

// Whether a class is passed to functions by the address of a temporary the caller makes and
// destroys (the Itanium C++ ABI's "non-trivial for the purposes of calls": a non-trivial copy
// or move constructor or destructor): 1 or 0, or -1 when not a C++ class with a definition.
int hipmlir_passed_indirectly(const void *decl) {
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  if (!r || !r->hasDefinition()) return -1;
  return !r->getDefinition()->canPassInRegisters();
}

// The variable a return statement returns by the named return value optimization (clang
// builds it in the return slot and does not destroy it), or null.
const void *hipmlir_nrvo_variable(const void *stmt) {
  const auto *r = llvm::dyn_cast<clang::ReturnStmt>(static_cast<const clang::Stmt *>(stmt));
  if (!r) return nullptr;
  const clang::VarDecl *v = r->getNRVOCandidate();
  return v && v->isNRVOVariable() ? v : nullptr;
}

// Whether a local variable is built in the return slot (the named return value optimization).
int hipmlir_is_nrvo_variable(const void *decl) {
  const auto *v = llvm::dyn_cast<clang::VarDecl>(static_cast<const clang::Decl *>(decl));
  return v && v->isNRVOVariable();
}

// libclang's cursor kind for the implicit nodes clang puts in an initializer list's semantic
// form (which libclang does not show: it visits the list as written): 103 CallExpr for a
// constructor call, 119 InitListExpr, 100 UnexposedExpr for conversions, value-initializations
// and lifetime nodes; 0 for other nodes, which appear in the written form too.
static int implicit_cursor_kind(const clang::Stmt *s) {
  if (llvm::isa<clang::CXXConstructExpr>(s)) return 103;
  if (llvm::isa<clang::InitListExpr>(s)) return 119;
  if (llvm::isa<clang::ImplicitCastExpr>(s) || llvm::isa<clang::ImplicitValueInitExpr>(s) ||
      llvm::isa<clang::CXXDefaultInitExpr>(s) || llvm::isa<clang::ExprWithCleanups>(s) ||
      llvm::isa<clang::MaterializeTemporaryExpr>(s) || llvm::isa<clang::CXXBindTemporaryExpr>(s) ||
      llvm::isa<clang::ArrayInitLoopExpr>(s))
    return 100;
  return 0;
}

// The initializers a constructor runs, in the order it runs them (bases, then members in
// declaration order), the implicit ones included (a base or member built by its default
// constructor, a default member initializer): for each, what it initializes (1 a base, 2 a
// member, whose FieldDecl goes to `fields`, 3 the whole object: a delegating constructor, 4 a
// member of an anonymous struct or union), the initializer and its libclang cursor kind (as for
// lists). Returns their number, or -1 for a declaration that is not a constructor, more than
// `max`, or initializers not yet read from a precompiled AST.
int hipmlir_ctor_initializers(const void *decl, int max, int *what, const void **fields,
                              const void **inits, int *kinds) {
  const auto *c =
      llvm::dyn_cast<clang::CXXConstructorDecl>(static_cast<const clang::Decl *>(decl));
  if (!c) return -1;
  const clang::LazyCXXCtorInitializersPtr &lazy = c->*member_of(CtorInitializersTag{});
  unsigned n = c->getNumCtorInitializers();
  if (n == 0) return 0;
  if (lazy.isOffset() || n > static_cast<unsigned>(max)) return -1;
  clang::CXXCtorInitializer *const *list = lazy.get(nullptr);
  for (unsigned i = 0; i < n; ++i) {
    const clang::CXXCtorInitializer *init = list[i];
    what[i] = init->isBaseInitializer()         ? 1
              : init->isMemberInitializer()     ? 2
              : init->isDelegatingInitializer() ? 3
                                                : 4;
    // A member of an anonymous struct or union: the member itself (the Rust side finds the
    // anonymous members holding it).
    fields[i] = init->isMemberInitializer()           ? init->getMember()
                : init->isIndirectMemberInitializer() ? init->getIndirectMember()->getAnonField()
                                                      : nullptr;
    inits[i] = init->getInit();
    kinds[i] = inits[i] ? implicit_cursor_kind(init->getInit()) : 0;
  }
  return static_cast<int>(n);
}

// The initializers of a braced list as clang understood it (its semantic form: one per base
// and member or element, with constructor calls, conversions and brace elision made explicit).
// Writes up to `max` nodes with their libclang cursor kinds (see above), and the array filler
// (how elements beyond the list are initialized, or null). Returns the number of initializers,
// or -1 when the expression is not a list or has more than `max`.
int hipmlir_init_list_items(const void *expr, const void **nodes, int *kinds, int max,
                            const void **filler, int *filler_kind) {
  const auto *l = llvm::dyn_cast<clang::InitListExpr>(static_cast<const clang::Stmt *>(expr));
  if (!l) return -1;
  if (l->isSyntacticForm() && l->getSemanticForm()) l = l->getSemanticForm();
  unsigned n = l->getNumInits();
  if (n > static_cast<unsigned>(max)) return -1;
  for (unsigned i = 0; i < n; ++i) {
    nodes[i] = l->getInit(i);
    kinds[i] = nodes[i] ? implicit_cursor_kind(l->getInit(i)) : 0;
  }
  const clang::Expr *f = l->hasArrayFiller() ? l->getArrayFiller() : nullptr;
  *filler = f;
  *filler_kind = f ? implicit_cursor_kind(f) : 0;
  return static_cast<int>(n);
}

// Whether a constructor call only stands for its argument (an elidable copy or move of a
// temporary, as clang builds in C++14: the object is built in place).
int hipmlir_is_elidable_construction(const void *expr) {
  const auto *c = llvm::dyn_cast<clang::CXXConstructExpr>(static_cast<const clang::Stmt *>(expr));
  return c && c->isElidable();
}

// The libclang cursor kind of an expression libclang does not show as a child (a range-based
// for's condition and increment): what those are, or an unexposed expression (an implicit
// conversion, a full-expression), whose children libclang shows.
static int expression_cursor_kind(const clang::Expr *e) {
  if (llvm::isa<clang::DeclRefExpr>(e)) return 101;
  if (llvm::isa<clang::MemberExpr>(e)) return 102;
  if (llvm::isa<clang::ArraySubscriptExpr>(e)) return 113;
  if (llvm::isa<clang::CompoundAssignOperator>(e)) return 115;
  if (llvm::isa<clang::BinaryOperator>(e)) return 114;
  if (llvm::isa<clang::UnaryOperator>(e)) return 112;
  if (llvm::isa<clang::ParenExpr>(e)) return 111;
  if (llvm::isa<clang::CallExpr>(e)) return 103;
  return 100;
}

// The init-statement of `switch (init; cond)`, which libclang does not show, and its cursor
// kind (a declaration statement or an expression); null when there is none.
const void *hipmlir_switch_init(const void *stmt, int *kind) {
  const auto *s = llvm::dyn_cast<clang::SwitchStmt>(static_cast<const clang::Stmt *>(stmt));
  const clang::Stmt *init = s ? s->getInit() : nullptr;
  if (!init) return nullptr;
  if (llvm::isa<clang::DeclStmt>(init)) *kind = 231;
  else if (const auto *e = llvm::dyn_cast<clang::Expr>(init)) *kind = expression_cursor_kind(e);
  else return nullptr;
  return init;
}

// What a loop hint (`#pragma unroll [N]`, `#pragma nounroll`, `#pragma GCC unroll N`,
// `#pragma clang loop unroll(...)`/`unroll_count(N)`) on the statement `stmt` asks of the loop it
// wraps: 0 no hint, 1 unroll (fully where the trip count is known), 2 fully, 3 `*count` times,
// 4 not at all. A count clang has not folded to a literal is taken as a plain `#pragma unroll`.
int hipmlir_loop_unroll(const void *stmt, unsigned *count) {
  const auto *s = llvm::dyn_cast<clang::AttributedStmt>(static_cast<const clang::Stmt *>(stmt));
  if (!s) return 0;
  for (const clang::Attr *a : s->getAttrs()) {
    const auto *hint = llvm::dyn_cast<clang::LoopHintAttr>(a);
    if (!hint) continue;
    switch (hint->getOption()) {
      case clang::LoopHintAttr::Unroll:
        switch (hint->getState()) {
          case clang::LoopHintAttr::Disable: return 4;
          case clang::LoopHintAttr::Full: return 2;
          default: return 1;
        }
      case clang::LoopHintAttr::UnrollCount: {
        const clang::Expr *value = hint->getValue();
        // A template's count (`#pragma unroll ITEMS`) is its argument, substituted.
        for (;;) {
          if (const auto *c = llvm::dyn_cast_or_null<clang::ConstantExpr>(value))
            value = c->getSubExpr();
          else if (const auto *p =
                       llvm::dyn_cast_or_null<clang::SubstNonTypeTemplateParmExpr>(value))
            value = p->getReplacement();
          else
            break;
        }
        const auto *literal = llvm::dyn_cast_or_null<clang::IntegerLiteral>(value);
        if (!literal) return 1;
        uint64_t n = literal->getValue().getLimitedValue(UINT32_MAX);
        if (n <= 1) return 4;
        *count = static_cast<unsigned>(n);
        return 3;
      }
      default: break;
    }
  }
  return 0;
}

// The hidden parts of a range-based for (`for (T x : range)`), as clang rewrites it: the
// variables `__range`, `__begin` and `__end`, the condition `__begin != __end` and the increment
// `++__begin` (with their cursor kinds), none of which libclang shows. Returns 0 when `stmt` is
// no range-based for or a part is missing.
int hipmlir_range_for_parts(const void *stmt, const void *parts[5], int kinds[5]) {
  const auto *s = llvm::dyn_cast<clang::CXXForRangeStmt>(static_cast<const clang::Stmt *>(stmt));
  if (!s || !s->getCond() || !s->getInc()) return 0;
  parts[0] = condition_variable(s->getRangeStmt());
  parts[1] = condition_variable(s->getBeginStmt());
  parts[2] = condition_variable(s->getEndStmt());
  parts[3] = s->getCond();
  parts[4] = s->getInc();
  kinds[0] = kinds[1] = kinds[2] = 0;
  kinds[3] = expression_cursor_kind(s->getCond());
  kinds[4] = expression_cursor_kind(s->getInc());
  return parts[0] && parts[1] && parts[2];
}

// The bindings of a structured binding declaration (`auto [a, b] = s;`: clang's DecompositionDecl,
// a variable holding the object decomposed, which libclang shows as an unexposed declaration),
// up to `max`. Returns their number, or -1 when `decl` is no such declaration or has more.
int hipmlir_decomposition_bindings(const void *decl, int max, const void **bindings) {
  const auto *d = llvm::dyn_cast<clang::DecompositionDecl>(static_cast<const clang::Decl *>(decl));
  if (!d || d->bindings().size() > static_cast<size_t>(max)) return -1;
  int n = 0;
  for (const clang::BindingDecl *b : d->bindings()) bindings[n++] = b;
  return n;
}

// What a declaration libclang shows as unexposed is, among those a function body may hold:
// 1 `using enum E;`, 2 a GNU local label (`__label__ l;`), 3 a structured binding, 4 an OpenMP
// or OpenACC directive's declaration; 0 anything else.
int hipmlir_unexposed_declaration(const void *decl) {
  switch (static_cast<const clang::Decl *>(decl)->getKind()) {
    case clang::Decl::UsingEnum: return 1;
    case clang::Decl::Label: return 2;
    case clang::Decl::Decomposition: return 3;
    case clang::Decl::OMPThreadPrivate:
    case clang::Decl::OMPAllocate:
    case clang::Decl::OMPDeclareReduction:
    case clang::Decl::OMPDeclareMapper:
    case clang::Decl::OMPRequires:
    case clang::Decl::OpenACCDeclare:
    case clang::Decl::OpenACCRoutine: return 4;
    default: return 0;
  }
}

// What a structured binding names (clang's BindingDecl::getBinding): a member or an element of the
// decomposed object, or for a tuple-like type the hidden reference variable (`*holding`)
// initialized from `get<i>`; with its libclang cursor kind. Null when `decl` is no binding or has
// no expression (a binding of a template not instantiated).
const void *hipmlir_binding_expression(const void *decl, int *kind, const void **holding) {
  const auto *b = llvm::dyn_cast<clang::BindingDecl>(static_cast<const clang::Decl *>(decl));
  const clang::Expr *e = b ? b->getBinding() : nullptr;
  if (!e) return nullptr;
  *kind = expression_cursor_kind(e);
  // BindingDecl::getHoldingVar, which libclang does not export: the implicit variable the
  // expression names.
  const clang::Expr *named = e;
  while (const auto *c = llvm::dyn_cast<clang::ImplicitCastExpr>(named)) named = c->getSubExpr();
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(named);
  const auto *var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  *holding = var && var->isImplicit() ? var : nullptr;
  return e;
}

// Whether a class is a lambda's closure type (libclang spells it `(lambda at file:line:col)` and
// says nothing more).
int hipmlir_is_lambda_class(const void *decl) {
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  return r && r->isLambda();
}

// The captures of a lambda's closure class, in clang's order, which is the order of the class's
// fields: for each, the captured declaration (null for `this` and a VLA bound) and its kind: 0 a
// variable, 1 a parameter, 2 `this`, 3 an init-capture, 4 anything else (a VLA bound), 5 a
// structured binding. Returns the count; -1 when `decl` is no closure class or has more than
// `max` captures.
int hipmlir_lambda_captures(const void *decl, int max, const void **captured, int *kinds) {
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  if (!r || !r->isLambda()) return -1;
  int n = 0;
  for (const clang::LambdaCapture &c : r->captures()) {
    if (n >= max) return -1;
    captured[n] = nullptr;
    kinds[n] = 4;
    if (c.capturesThis()) {
      kinds[n] = 2;
    } else if (c.capturesVariable()) {
      const clang::ValueDecl *v = c.getCapturedVar();
      captured[n] = v;
      if (llvm::isa<clang::ParmVarDecl>(v))
        kinds[n] = 1;
      else if (const auto *var = llvm::dyn_cast<clang::VarDecl>(v))
        kinds[n] = var->isInitCapture() ? 3 : 0;
      else if (llvm::isa<clang::BindingDecl>(v))
        kinds[n] = 5;
    }
    ++n;
  }
  return n;
}

// The initializers of a lambda's captures, in the order of its closure's fields (clang's
// capture inits: a by-copy capture's copy through the constructor clang chose, an array's
// array-init loop; a by-reference capture's object; an init-capture's initializer), each with
// its libclang cursor kind as for lists; null for a capture without one (a VLA bound). Returns
// the count, or -1 when `expr` is no lambda or has more than `max` captures.
int hipmlir_lambda_capture_inits(const void *expr, int max, const void **inits, int *kinds) {
  const auto *l = llvm::dyn_cast<clang::LambdaExpr>(static_cast<const clang::Stmt *>(expr));
  if (!l) return -1;
  int n = 0;
  for (const clang::Expr *init : l->capture_inits()) {
    if (n >= max) return -1;
    inits[n] = init;
    kinds[n] = init ? implicit_cursor_kind(init) : 0;
    ++n;
  }
  return n;
}

// A `<<<>>>` launch (clang's CUDAKernelCallExpr, which libclang shows as a plain call): writes its
// callee, its configuration call (`__hipPushCallConfiguration(grid, block, ...)`, whose source
// range runs from the `<<<` to the `>>>`) and the location of the `)` closing its arguments (a
// raw source location: libclang gives a range's end only where the outermost macro use ends).
// Returns 0, or -1 when the expression is no launch.
int hipmlir_kernel_call(const void *expr, const void **callee, const void **config,
                        unsigned *rparen) {
  const auto *c =
      llvm::dyn_cast<clang::CUDAKernelCallExpr>(static_cast<const clang::Stmt *>(expr));
  if (!c) return -1;
  *callee = c->getCallee();
  *config = c->getConfig();
  *rparen = c->getRParenLoc().getRawEncoding();
  return 0;
}

// Whether a binary or compound-assignment operator may be fused with another into one operation
// (a multiply and an add into an FMA): 1, unless a `#pragma clang fp contract(off)` or
// `#pragma STDC FP_CONTRACT OFF` in effect there says 0. Without a pragma the language's default
// holds, which for HIP is hipcc's (-ffp-contract=fast-honor-pragmas). -1 for other nodes.
int hipmlir_fp_contract_allowed(const void *expr) {
  const auto *b = llvm::dyn_cast<clang::BinaryOperator>(static_cast<const clang::Stmt *>(expr));
  if (!b) return -1;
  if (!b->hasStoredFPFeatures()) return 1;
  clang::FPOptionsOverride o = b->getStoredFPFeatures();
  if (!o.hasFPContractModeOverride()) return 1;
  return o.getFPContractModeOverride() != clang::LangOptions::FPM_Off;
}

// `__launch_bounds__(max_threads, ...)` (clang's CUDALaunchBoundsAttr; a libclang cursor for an
// attribute holds the `clang::Attr *` in `data[1]`): its first argument, for the caller to
// evaluate, or null when the attribute is another or the argument depends on a template's
// parameters (the template's own declaration, not an instance).
const void *hipmlir_launch_bounds(const void *attr) {
  const auto *a = llvm::dyn_cast<clang::CUDALaunchBoundsAttr>(static_cast<const clang::Attr *>(attr));
  if (!a || !a->getMaxThreads() || a->getMaxThreads()->isValueDependent()) return nullptr;
  return a->getMaxThreads();
}

}  // extern "C"

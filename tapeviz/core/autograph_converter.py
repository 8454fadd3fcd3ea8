"""AutoGraph's conversion: a function's Python ``if``/``while``/``for`` rewritten (on its AST) into calls of
``autograph_operators`` that become ``tf.cond``/``tf.while_loop`` when their condition is a traced tensor.

The passes, in order, on the function's own body (nested functions are left alone):

1. ``break``/``continue`` become flags (``ag__break_1 = True``) and the statements after them are guarded
   by ``if not flag``; a loop with a break also tests its flag;
2. a function whose ``if`` branches end in ``return`` is rewritten to assign ``ag__retval`` and return
   it once, after the ``if`` (the statements after an ``if`` that returns move into its ``else``);
3. each ``if``/``while``/``for``, innermost first, becomes local functions of its branches or body
   taking and returning the names it assigns, and one operator call (``ag__.if_stmt``...).

Before them, each conditional expression ``a if test else b`` becomes ``ag__.if_exp``.
The result is plain Python; ``to_source`` shows it (``tf.autograph.to_code``).
"""

import ast
import inspect
import itertools
import textwrap
import types

_PREFIX = "ag__fn_"


class ConversionError(Exception):
    """The function's source cannot be converted (no source, a lambda): it runs unconverted."""


def parse(function):
    """The FunctionDef of ``function``'s source, decorators removed."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError) as exc:
        raise ConversionError(f"no source: {exc}") from None
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ConversionError(f"the source does not parse alone: {exc}") from None
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function.__name__]
    if not defs:
        raise ConversionError("not a def statement (a lambda?)")
    node = defs[0]
    node.decorator_list = []
    for inner in _walk_local(node.body):
        if isinstance(inner, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
            raise ConversionError(f"{type(inner).__name__.lower()} statements are left as written")
        if isinstance(inner, (ast.If, ast.While, ast.For)) and "super" in _loaded([inner]):
            raise ConversionError("super() inside a converted statement would lose its class")
    return node


def convert_tree(node):
    """Run the three passes on a FunctionDef (in place); returns it."""
    counter = itertools.count(1)
    node.body = [_ConditionalExpressions().visit(stmt) for stmt in node.body]
    node.body = _lower_jumps(node.body, counter)
    node.body = _lift_returns(_move_after_returning_ifs(node.body))
    node.body = _Converter(node, counter).convert_block(node.body)
    ast.fix_missing_locations(node)
    return node


def to_source(function):
    """The converted source of ``function`` (what ``tf.autograph.to_code`` returns)."""
    return ast.unparse(convert_tree(parse(function)))


def convert(function, operators):
    """``function`` converted: a new function of the same globals, closure and defaults."""
    node = convert_tree(parse(function))
    offset = function.__code__.co_firstlineno - node.lineno
    ast.increment_lineno(node, offset)
    freevars = list(function.__code__.co_freevars)
    factory = ast.FunctionDef(
        name="ag__factory",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=n) for n in ["ag__", *freevars]],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),  # fmt: skip
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[],
        returns=None,
        type_params=[],
    )
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    namespace = {}
    exec(compile(module, function.__code__.co_filename, "exec"), function.__globals__, namespace)  # noqa: S102
    inner = namespace["ag__factory"](operators, *[None] * len(freevars))
    cells = dict(zip(freevars, function.__closure__ or ()))
    cells["ag__"] = types.CellType(operators)
    closure = tuple(cells[name] for name in inner.__code__.co_freevars)
    converted = types.FunctionType(inner.__code__, function.__globals__, function.__name__, function.__defaults__,
                                   closure)  # fmt: skip
    converted.__kwdefaults__ = function.__kwdefaults__
    converted.__qualname__ = function.__qualname__
    converted.__module__ = function.__module__
    converted.__doc__ = function.__doc__
    return converted


# -- helpers on statements ----------------------------------------------------------------------------
def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _call(attr, *args):
    return ast.Call(func=ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load()), args=list(args), keywords=[])


def _tuple(names, store=False):
    return ast.Tuple(elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())


def _strings(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)  # fmt: skip


def _walk_local(nodes):
    """Every node under ``nodes``, not entering nested functions, lambdas, classes or comprehensions
    (which are yielded themselves: a def's name is assigned here)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _assigned(nodes):
    names = []
    for node in _walk_local(nodes):
        found = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found = node.id
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = node.name
        if found and not found.startswith(_PREFIX) and found not in names:
            names.append(found)
    return sorted(names)


def _loaded(nodes):
    """Names read under ``nodes`` (nested functions included: they read when called; ``x += 1`` reads x)."""
    loaded = set()
    for node in ast.walk(ast.Module(body=list(nodes), type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loaded.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            loaded.add(node.target.id)
    return loaded


def _read_first(stmts):
    """Names a block may read before it assigns them (its live-in names, as a loop body's carried values)."""
    assigned, read = set(), set()
    for stmt in stmts:
        read |= _loaded([stmt]) - assigned
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            assigned.update(_assigned([stmt]))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            assigned.add(stmt.name)
    return read


def _contains(nodes, kinds, into_loops=True):
    for node in _walk_local(nodes):
        if isinstance(node, kinds):
            return True
    return False


class _ConditionalExpressions(ast.NodeTransformer):
    """``a if test else b`` as ``ag__.if_exp(test, lambda: a, lambda: b)`` (a tf.cond on a traced test)."""

    def visit_IfExp(self, node):
        self.generic_visit(node)
        call = _call(
            "if_exp",
            _logical(node.test),
            ast.Lambda(args=_no_args(), body=node.body),
            ast.Lambda(args=_no_args(), body=node.orelse),
        )
        return ast.copy_location(call, node)


# -- pass 1: break and continue as flags -----------------------------------------------------------------
def _lower_jumps(stmts, counter):
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                setattr(stmt, field, _lower_jumps(getattr(stmt, field), counter))
        if isinstance(stmt, ast.Try):
            for handler in stmt.handlers:
                handler.body = _lower_jumps(handler.body, counter)
        if isinstance(stmt, (ast.While, ast.For)) and not stmt.orelse:
            out.extend(_lower_loop(stmt, counter))
        else:
            out.append(stmt)
    return out


def _jumps(stmts, kind):
    """True when a ``kind`` statement of this loop (not of a loop inside it) is among ``stmts``."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            return True
        if isinstance(node, (ast.While, ast.For, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _replace_jump(stmts, kind, flag):
    """``stmts`` with each ``kind`` set ``flag`` instead, and what follows a statement that may set it guarded."""
    out = []
    for index, stmt in enumerate(stmts):
        if isinstance(stmt, kind):
            out.append(ast.Assign(targets=[_name(flag, True)], value=ast.Constant(True)))
            return out  # what follows a jump never runs
        if isinstance(stmt, ast.If) and _jumps([stmt], kind):
            stmt.body = _replace_jump(stmt.body, kind, flag)
            stmt.orelse = _replace_jump(stmt.orelse, kind, flag)
            out.append(stmt)
            rest = stmts[index + 1 :]
            if rest:
                guard = ast.If(test=_call("not_", _name(flag)), body=_replace_jump(rest, kind, flag), orelse=[])
                out.append(guard)
            return out
        if _jumps([stmt], kind):  # a jump inside a with or try: left as Python
            raise ConversionError("break/continue inside with/try")
        out.append(stmt)
    return out


def _lower_loop(loop, counter):
    before = []
    if _jumps(loop.body, ast.Continue):
        flag = f"ag__continue_{next(counter)}"
        loop.body = [ast.Assign(targets=[_name(flag, True)], value=ast.Constant(False))] + _replace_jump(
            loop.body, ast.Continue, flag
        )
    if _jumps(loop.body, ast.Break):
        flag = f"ag__break_{next(counter)}"
        before.append(ast.Assign(targets=[_name(flag, True)], value=ast.Constant(False)))
        loop.body = _replace_jump(loop.body, ast.Break, flag)
        if isinstance(loop, ast.While):
            loop.test = _call("and_", ast.Lambda(args=_no_args(), body=_call("not_", _name(flag))),
                              ast.Lambda(args=_no_args(), body=loop.test))  # fmt: skip
        else:
            loop.ag_extra_test = flag
    return before + [loop]


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])


# -- pass 2: returns inside ifs ------------------------------------------------------------------------
def _ends_in_return(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _ends_in_return(last.body) and _ends_in_return(last.orelse)


def _move_after_returning_ifs(stmts):
    out = []
    for index, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If):
            stmt.body = _move_after_returning_ifs(stmt.body)
            stmt.orelse = _move_after_returning_ifs(stmt.orelse)
            rest = stmts[index + 1 :]
            if rest and _contains([stmt], ast.Return):
                if _ends_in_return(stmt.body) and not _ends_in_return(stmt.orelse):
                    stmt.orelse = _move_after_returning_ifs(stmt.orelse + rest)
                    out.append(stmt)
                    return out
                if _ends_in_return(stmt.orelse) and not _ends_in_return(stmt.body):
                    stmt.body = _move_after_returning_ifs(stmt.body + rest)
                    out.append(stmt)
                    return out
        out.append(stmt)
    return out


def _lift_returns(stmts):
    if not stmts or not isinstance(stmts[-1], ast.If) or not _ends_in_return(stmts[-1].body):
        return stmts
    last = stmts[-1]
    if not _ends_in_return(last.orelse):
        return stmts
    _assign_returns(last)
    return stmts + [ast.Return(value=_name("ag__retval"))]


def _assign_returns(if_node):
    for branch in (if_node.body, if_node.orelse):
        last = branch[-1]
        if isinstance(last, ast.Return):
            value = last.value if last.value is not None else ast.Constant(None)
            branch[-1] = ast.copy_location(ast.Assign(targets=[_name("ag__retval", True)], value=value), last)
        else:
            _assign_returns(last)


# -- pass 3: control flow as operator calls ------------------------------------------------------------------
class _Converter:
    def __init__(self, function, counter):
        self.function = function
        self.counter = counter

    def convert_block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.convert(stmt))
        return out

    def convert(self, stmt):
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(
                stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                setattr(stmt, field, self.convert_block(getattr(stmt, field)))
        if isinstance(stmt, ast.Try):
            for handler in stmt.handlers:
                handler.body = self.convert_block(handler.body)
        if isinstance(stmt, ast.If):
            return self.convert_if(stmt)
        if isinstance(stmt, ast.While) and not stmt.orelse:
            return self.convert_while(stmt)
        if isinstance(stmt, ast.For) and not stmt.orelse and isinstance(stmt.target, (ast.Name, ast.Tuple)):
            return self.convert_for(stmt)
        return [stmt]

    def live_outside(self, stmt):
        """Names read anywhere in the function outside ``stmt`` (a cheap liveness)."""
        others = [n for n in self.function.body if n is not stmt]
        loaded = set()
        for node in ast.walk(self.function):
            if node is stmt:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not _inside(node, stmt):
                loaded.add(node.id)
        del others
        return loaded

    def has_return(self, stmts):
        return _contains(stmts, ast.Return)

    def convert_if(self, stmt):
        n = next(self.counter)
        test = _logical(stmt.test)
        if self.has_return(stmt.body + stmt.orelse):  # a return we could not lift: Python if, tensors refused
            stmt.test = _call("if_test_with_return", test)
            return [stmt]
        modified = _assigned(stmt.body + stmt.orelse)
        live = self.live_outside(stmt)
        outputs = [name for name in modified if name in live or name.startswith("ag__")]
        true_fn, false_fn = f"{_PREFIX}if_true_{n}", f"{_PREFIX}if_false_{n}"
        defs = [
            _def(true_fn, modified, stmt.body, outputs),
            _def(false_fn, modified, stmt.orelse, outputs),
        ]
        call = _call("if_stmt", test, _name(true_fn), _name(false_fn), _args(modified), _strings(outputs))
        return _load_defined(modified) + defs + [_assign_outputs(outputs, call, stmt)]

    def loop_vars(self, stmt, extra=()):
        modified = _assigned(stmt.body)
        live = self.live_outside(stmt) | _read_first(stmt.body) | _loaded([stmt.test] if hasattr(stmt, "test") else [])
        loop_vars = [name for name in modified if name in live or name in extra]
        return modified, [name for name in loop_vars if not name.startswith("ag__continue_")]

    def convert_while(self, stmt):
        n = next(self.counter)
        test = _logical(stmt.test)
        if self.has_return(stmt.body):
            stmt.test = _call("loop_test_with_return", test)
            return [stmt]
        modified, loop_vars = self.loop_vars(stmt)
        test_fn, body_fn = f"{_PREFIX}loop_test_{n}", f"{_PREFIX}loop_body_{n}"
        defs = [
            _def(test_fn, loop_vars, [ast.Return(value=test)], None),
            _def(body_fn, loop_vars, _local_defaults(modified, loop_vars) + stmt.body, loop_vars),
        ]
        call = _call("while_stmt", _name(test_fn), _name(body_fn), _tuple(loop_vars), _strings(loop_vars))
        return _load_defined(loop_vars) + defs + [_assign_outputs(loop_vars, call, stmt)]

    def convert_for(self, stmt):
        n = next(self.counter)
        if self.has_return(stmt.body):
            stmt.iter = _call("iter_with_return", stmt.iter)
            return [stmt]
        flag = getattr(stmt, "ag_extra_test", None)
        modified, loop_vars = self.loop_vars(stmt, extra=(flag,) if flag else ())
        target = "ag__item"
        unpack = ast.Assign(targets=[stmt.target], value=_name(target))
        loop_vars = [name for name in loop_vars if name not in _assigned([unpack])]
        body_fn = f"{_PREFIX}for_body_{n}"
        local = [m for m in modified if m not in loop_vars and m not in _assigned([unpack])]
        body = [unpack] + _local_defaults(local, []) + stmt.body
        defs = [_def(body_fn, [target] + loop_vars, body, loop_vars, defaults_for=set())]
        extra = ast.Constant(None)
        if flag:
            extra_fn = f"{_PREFIX}for_test_{n}"
            defs.append(_def(extra_fn, loop_vars, [ast.Return(value=_call("not_", _name(flag)))], None))
            extra = _name(extra_fn)
        call = _call("for_stmt", stmt.iter, extra, _name(body_fn), _tuple(loop_vars), _strings(loop_vars))
        return _load_defined(loop_vars) + defs + [_assign_outputs(loop_vars, call, stmt)]


def _inside(node, stmt):
    return any(child is node for child in ast.walk(stmt))


def _logical(test):
    """``not``/``and``/``or`` in a condition as operator calls (they take tensors)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _call("not_", _logical(test.operand))
    if isinstance(test, ast.BoolOp):
        name = "and_" if isinstance(test.op, ast.And) else "or_"
        result = _logical(test.values[0])
        for value in test.values[1:]:
            result = _call(
                name, ast.Lambda(args=_no_args(), body=result), ast.Lambda(args=_no_args(), body=_logical(value))
            )
        return result
    return test


def _args(names):
    return _tuple(names)


def _def(name, params, body, outputs, defaults_for=None):
    body = list(body) or [ast.Pass()]
    if outputs is not None:
        body = body + [ast.Return(value=_tuple(outputs))]
    return ast.FunctionDef(
        name=name,
        args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=p) for p in params], kwonlyargs=[], kw_defaults=[], defaults=[]
        ),
        body=body,
        decorator_list=[],
        returns=None,
        type_params=[],
    )


def _local_defaults(modified, loop_vars):
    """Names a loop body assigns that are not loop variables start undefined each iteration."""
    return [
        ast.Assign(targets=[_name(n, True)], value=_call("Undefined", ast.Constant(n)))
        for n in modified
        if n not in loop_vars
    ]


def _load_defined(names):
    """``try: x / except NameError: x = ag__.Undefined('x')`` for each name (it may not be bound yet)."""
    out = []
    for n in names:
        out.append(
            ast.Try(
                body=[ast.Expr(value=_name(n))],
                handlers=[
                    ast.ExceptHandler(
                        type=_name("NameError"),
                        name=None,
                        body=[ast.Assign(targets=[_name(n, True)], value=_call("Undefined", ast.Constant(n)))],
                    )
                ],
                orelse=[],
                finalbody=[],
            )
        )
    return out


def _assign_outputs(names, call, stmt):
    if names:
        node = ast.Assign(targets=[_tuple(names, True)], value=call)
    else:
        node = ast.Expr(value=call)
    return ast.copy_location(node, stmt)

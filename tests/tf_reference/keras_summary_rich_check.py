"""Check tapeviz/keras/utils/summary_table.py against rich itself (what Keras prints through) on random tables.

Run by hand where rich is installed (it is not a tapeviz dependency):

    /tmp/tfenv/bin/python tests/tf_reference/keras_summary_rich_check.py

It prints how many of the random tables differ (0 expected) and the first differences.
"""

import importlib.util
import pathlib
import random

import rich.console
import rich.markup
import rich.table

TABLE_MODULE = pathlib.Path(__file__).resolve().parents[2] / "tapeviz" / "keras" / "utils" / "summary_table.py"
WORDS = ["dense", "a_long_layer_name_with_many_parts", "(Dense)", "(BatchNormalization)", "(None,", "26,", "32)"]
WORDS += ["x[0][0],", "y", "", "1,234", "0 (unbuilt)", "   └"]


def load_table_module():
    spec = importlib.util.spec_from_file_location("summary_table", TABLE_MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the module imports only `re`: no tapeviz, no NumPy needed here
    return module


def rich_lines(header, rows, widths, justify, line_length):
    columns = [rich.table.Column(h, justify=j, width=w) for h, j, w in zip(header, justify, widths)]
    table = rich.table.Table(*columns, width=line_length, show_lines=True)
    for row in rows:
        table.add_row(*[rich.markup.escape(cell) for cell in row])
    console = rich.console.Console(highlight=False, force_terminal=False, color_system=None, width=400)
    console.begin_capture()
    console.print(table)
    return console.end_capture().rstrip("\n").split("\n")


def main(trials=3000, seed=0):
    summary_table = load_table_module()
    rng = random.Random(seed)

    def text(most):
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, most)))

    differ = 0
    for _ in range(trials):
        ncol = rng.choice([3, 4, 5])
        positions = sorted(rng.uniform(0.1, 0.95) for _ in range(ncol - 1)) + [1.0]
        line_length = rng.randint(30, 160)
        try:
            widths = summary_table.column_widths(line_length, positions)
        except ValueError:  # Keras refuses these widths too
            continue
        justify = [rng.choice(["left", "right", "center"]) for _ in range(ncol)]
        header = [text(3) or "h" for _ in range(ncol)]
        rows = [[text(4) for _ in range(ncol)] for _ in range(rng.randint(0, 3))]
        want = rich_lines(header, rows, widths, justify, line_length)
        got = summary_table.render(header, rows, widths, justify, line_length)
        if got != want:
            differ += 1
            if differ <= 2:
                print(line_length, positions, justify, header, rows, *want, *got, sep="\n")
    print("tables that differ:", differ, "of", trials)


if __name__ == "__main__":
    main()

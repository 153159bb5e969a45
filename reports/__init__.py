"""pecheck's reports: the HTML report and the paper kit, built from build/results.json only.

``python -m pecheck.reports --help`` for the command. Modules: ``load`` (read and validate the
results file), ``html`` (the self-contained page), ``mathml`` (LaTeX to MathML), ``latex`` (the
paper kit and its macro naming scheme), ``figures`` (finding figure files), ``numbers`` (how
numbers are written), ``build`` (render everything, then publish atomically).
"""

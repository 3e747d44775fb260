"""One module per suite of the plan; importing this package registers every case."""
import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(__name__ + "." + _module.name)

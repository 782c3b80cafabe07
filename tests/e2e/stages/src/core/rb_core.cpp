// rb_core: add(a, b) -> a + b, in C++ (std::plus), as a CPython extension module.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <functional>

static PyObject *add(PyObject *, PyObject *args) {
    long a = 0, b = 0;
    if (!PyArg_ParseTuple(args, "ll", &a, &b)) {
        return nullptr;
    }
    return PyLong_FromLong(std::plus<long>()(a, b));
}

static PyMethodDef methods[] = {
    {"add", add, METH_VARARGS, "a + b"},
    {nullptr, nullptr, 0, nullptr},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "rb_core", "rb-core", -1, methods};

PyMODINIT_FUNC PyInit_rb_core(void) { return PyModule_Create(&module); }

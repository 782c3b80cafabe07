/* rb_app._native.twice(x) -> 2 * x, in C. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *twice(PyObject *self, PyObject *arg) {
    long x = PyLong_AsLong(arg);
    if (x == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return PyLong_FromLong(2 * x);
}

static PyMethodDef methods[] = {
    {"twice", twice, METH_O, "2 * x"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", "rb-app", -1, methods};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }

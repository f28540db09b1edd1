/*
 * Copyright 2020 Free Software Foundation, Inc.
 * Copyright 2026 gr-gpumimo authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <pybind11/pybind11.h>

#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

// The markers are gr_modtool's: `gr_modtool add` puts a new block's bind_ function
// between them.
// BINDING_FUNCTION_PROTOTYPES(
void bind_core(py::module& m);
void bind_link(py::module& m);
void bind_batch_detector(py::module& m);
void bind_ofdm_fft(py::module& m);
void bind_apsm_detector(py::module& m);
void bind_frame(py::module& m);
void bind_receiver(py::module& m);
void bind_sigmf(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES

namespace {

// Sets a Python exception from a C++ message that may hold bytes that are not UTF-8 (a
// path, or a file's content quoted in a parse error): such bytes are escaped (\xNN), so
// the message always arrives; pybind11's own translation decodes strictly and leaves an
// empty message then.
void set_python_error(PyObject* type, const char* what)
{
    PyObject* message = PyUnicode_DecodeUTF8(what, Py_ssize_t(std::strlen(what)),
                                             "backslashreplace");
    if (!message) { // cannot happen with backslashreplace; keep some message
        PyErr_Clear();
        message = PyUnicode_FromString("(undecodable error message)");
    }
    PyErr_SetObject(type, message);
    Py_XDECREF(message);
}

// pybind11's mapping of the standard exceptions (ValueError for invalid_argument and
// the like, MemoryError, RuntimeError), with set_python_error. pybind11's own exception
// types pass on to its translator.
void translate_exception(std::exception_ptr p)
{
    try {
        if (p)
            std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
        throw;
    } catch (const py::error_already_set&) {
        throw;
    } catch (const std::invalid_argument& e) {
        set_python_error(PyExc_ValueError, e.what());
    } catch (const std::domain_error& e) {
        set_python_error(PyExc_ValueError, e.what());
    } catch (const std::length_error& e) {
        set_python_error(PyExc_ValueError, e.what());
    } catch (const std::range_error& e) {
        set_python_error(PyExc_ValueError, e.what());
    } catch (const std::out_of_range& e) {
        set_python_error(PyExc_IndexError, e.what());
    } catch (const std::overflow_error& e) {
        set_python_error(PyExc_OverflowError, e.what());
    } catch (const std::bad_alloc&) {
        set_python_error(PyExc_MemoryError, "out of memory");
    } catch (const std::exception& e) {
        set_python_error(PyExc_RuntimeError, e.what());
    }
}

} // namespace

// import_array() returns NULL on newer Pythons, hence the wrapper.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(gpumimo_python, m)
{
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");
    py::register_local_exception_translator(translate_exception);

    // BINDING_FUNCTION_CALLS(
    bind_core(m);
    bind_link(m);
    bind_batch_detector(m);
    bind_ofdm_fft(m);
    bind_apsm_detector(m);
    bind_frame(m);
    bind_receiver(m);
    bind_sigmf(m);
    // ) END BINDING_FUNCTION_CALLS
}

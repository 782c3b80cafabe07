double rb_lerp(double a, double b, double t) {
    return a + (b - a) * t;
}

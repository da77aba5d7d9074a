/* Preloaded after libtiermem.so; its only purpose is to depend on early-alloc.so. */
void early_wrap(void);
void early_wrap(void)
{
}
